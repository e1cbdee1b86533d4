"""The leash between a worker and its judge: a judge never outlives, nor runs on beside, its worker. The
worker writes a byte to the judge's stdin every `interval` (`Holder`); the judge stops itself (`watch`,
`EXIT_STATUS`) at end of file, on a new parent, or after `leash_s` of silence (RUNNER_LEASH_S).
docs/platform.md, "Operations", says why."""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time

from runner import settings

EXIT_STATUS = 75  # EX_TEMPFAIL: not the submission's doing
DEFAULT_LEASH_S = 20.0


def leash_s() -> float:
    try:
        return max(0.0, float(settings.get("RUNNER_LEASH_S")))
    except ValueError:
        return DEFAULT_LEASH_S


_held: set[Holder] = set()
_held_lock = threading.Lock()


def cut_all() -> int:
    """Let go of every judge this process holds: each sees the end of its stdin and stops at once. For a
    worker that learns its submission was taken back (the judging is now another worker's). Returns how
    many were let go."""
    with _held_lock:
        holders = list(_held)
    for holder in holders:
        holder.cut()
    return len(holders)


class Holder:
    """The worker's end: a thread that writes a byte to the judge's stdin every `interval_s` until stopped
    (or until the judge has gone and the pipe is broken)."""

    def __init__(self, stream, interval_s: float) -> None:
        self.stream, self.interval_s = stream, interval_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._hold, name="judge-leash", daemon=True)

    def __enter__(self) -> Holder:
        with _held_lock:
            _held.add(self)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        with _held_lock:
            _held.discard(self)
        self._stop.set()
        self._thread.join()

    def cut(self) -> None:
        self._stop.set()
        with self._lock:
            try:
                self.stream.close()
            except (BrokenPipeError, OSError):
                pass

    def _hold(self) -> None:
        while not self._stop.wait(self.interval_s):
            with self._lock:
                try:
                    self.stream.write(b".")
                    self.stream.flush()
                except (BrokenPipeError, OSError, ValueError):  # the judge ended, or was let go
                    return


def interval_for(leash: float) -> float:
    return min(1.0, leash / 4)


def watch(fd: int, leash: float, parent: int) -> None:
    """The judge's end: a daemon thread that stops this process when the worker is gone or frozen."""

    def run() -> None:
        last = time.monotonic()
        while True:
            ready, _, _ = select.select([fd], [], [], min(0.5, leash / 4))
            if ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    data = b""
                if not data:
                    _stop_judge("its worker is gone (the leash was cut)")
                last = time.monotonic()
            if os.getppid() != parent:
                _stop_judge("its worker is gone (the judge was reparented)")
            if time.monotonic() - last > leash:
                _stop_judge(f"its worker has not answered for {leash:g} s (frozen or hung)")

    threading.Thread(target=run, name="leash-watch", daemon=True).start()


def _stop_judge(why: str) -> None:
    """Kill every process this judge started (each contestant leads a process group of its own), then exit."""
    for child in _children():
        for kill in (os.killpg, os.kill):
            try:
                kill(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    try:
        sys.stderr.write(f"the judge stopped itself: {why}\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_STATUS)


def _children() -> list[int]:
    pids: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids += [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            pass
    return pids

"""The go/done counters of a window's calls: one shared page, one input revealed per call, on every device
(the judge writes `go = i + 1`, the contestant `done = i + 1`, or -1 when the call raised). On a CPU the
contestant sleeps on a futex of the page until its go; on a GPU both spin. docs/harness.md, "One case"."""

from __future__ import annotations

import ctypes
import mmap
import platform
import time
from collections.abc import Callable

GO, DONE = 0, 1  # the two counters of the page, each an int64
FAILED = -1  # done's value when the call raised: the reply says why
JUDGE_SPIN_S = 50e-6  # the judge spins this long for done before it sleeps: a short call's done seen at once
SLEEP_S = 0.002  # each sleep is this short, so that a dead or silent contestant is noticed soon

_FUTEX_WAIT, _FUTEX_WAKE = 0, 1  # shared (not private): the page is mapped by two processes
_SYS_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine())
_libc = ctypes.CDLL(None, use_errno=True)


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]


class Control:
    """The page of counters, mapped from a memfd both processes share. Mapped with mmap(2) itself, not
    Python's mmap, which would keep a duplicate of the descriptor open: the caller closes `fd`, and the
    contestant holds no descriptor it was not meant to (tests/runner/test_forkserver.py)."""

    def __init__(self, fd: int):
        base = _libc.mmap(None, mmap.PAGESIZE, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "could not map the go/done page")
        self._base = base
        self.counters = (ctypes.c_int64 * 2).from_address(base)

    def __getitem__(self, i: int) -> int:
        return self.counters[i]

    def __setitem__(self, i: int, value: int) -> None:
        self.counters[i] = value

    def post(self, i: int, value: int) -> None:
        """Set counter i and wake whoever sleeps on it."""
        self.counters[i] = value
        if _SYS_FUTEX is not None:
            _libc.syscall(_SYS_FUTEX, ctypes.c_void_p(self._base + 8 * i), _FUTEX_WAKE, 1, None, None, 0)

    def sleep(self, i: int, seen: int, seconds: float) -> None:
        """Sleep while counter i still holds `seen`, for at most `seconds` (the futex watches its low 32
        bits, little-endian). Returns early on a change, a wake or a signal; the caller looks again."""
        if _SYS_FUTEX is None:  # no futex number known for this machine: a short sleep instead
            time.sleep(min(seconds, 50e-6))
            return
        ts = _Timespec(int(seconds), int((seconds % 1) * 1e9))
        low = ctypes.c_uint32(seen & 0xFFFFFFFF).value
        _libc.syscall(
            _SYS_FUTEX, ctypes.c_void_p(self._base + 8 * i), _FUTEX_WAIT, low, ctypes.byref(ts), None, 0
        )

    # ---- the contestant's side -----------------------------------------------------------------------

    def await_go(self, call: int, spin: bool) -> None:
        """Wait until the judge reveals call `call` (go > call): spinning (GPU) or asleep (CPU)."""
        while self.counters[GO] <= call:
            if not spin:
                self.sleep(GO, self.counters[GO], 1.0)

    # ---- the judge's side ----------------------------------------------------------------------------

    def await_done(self, call: int, deadline: float, spin_s: float | None, stop: Callable[[], bool]) -> int:
        """Wait until done leaves [0, call] and return it: call + 1 when the call was made, FAILED when it
        raised, anything else when the contestant broke the protocol. Spins for `spin_s` (for ever with
        None), then sleeps in short naps; gives up (returns done as it is) past `deadline` (time.monotonic)
        or once stop() says the contestant will not answer (it died, or replied on the socket instead)."""
        counters = self.counters
        if spin_s is None:
            while 0 <= counters[DONE] <= call:
                if time.monotonic() > deadline or stop():
                    break
            return counters[DONE]
        until = time.perf_counter() + spin_s
        while 0 <= counters[DONE] <= call and time.perf_counter() < until:
            pass
        while 0 <= (done := counters[DONE]) <= call:
            if time.monotonic() > deadline or stop():
                break
            self.sleep(DONE, done, SLEEP_S)
        return counters[DONE]


def control_fd() -> int:
    """A fresh page for the counters, sealed against shrinking (runner.wire.channel.sealed_memfd)."""
    from runner.wire.channel import sealed_memfd

    return sealed_memfd("kernelboard-control", mmap.PAGESIZE)

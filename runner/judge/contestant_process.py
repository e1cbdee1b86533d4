"""The contestant's process, seen from the judge: starting it in its sandbox, talking to it, its capped
output, and every way it can fail turned into a verdict with a message.

Imports no torch, so the judge starts the contestant first and both import torch at the same time.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import threading
import time
from typing import Any

from runner.limits import Limits
from runner.sandbox import Job, freeze, get_sandbox, stem
from runner.spec import Verdict
from runner.wire import handshake
from runner.wire.channel import Channel, ChannelClosed, ProtocolError

LOG_KEEP = 32 * 1024  # bytes of the contestant's output kept at each end of the log


class Stop(Exception):
    """Ends the run early with a verdict and a message in the user's words."""

    def __init__(self, verdict: str, message: str):
        super().__init__(message)
        self.verdict = verdict
        self.message = message


class ContestantLog:
    """Reads everything the contestant prints, keeps the head and the tail, and stops it past the limit."""

    def __init__(self, fd: int, limit: int, on_flood):
        self.fd, self.limit, self.on_flood = fd, limit, on_flood
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.flooded = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.total += len(chunk)
            if len(self.head) < LOG_KEEP:
                self.head += chunk[: LOG_KEEP - len(self.head)]
            else:
                self.tail = (self.tail + chunk)[-LOG_KEEP:]
            if self.total > self.limit and not self.flooded:
                self.flooded = True
                self.on_flood()
        os.close(self.fd)

    def text(self) -> str:
        self.thread.join(timeout=2)
        body = self.head.decode(errors="replace")
        if self.tail:
            skipped = self.total - len(self.head) - len(self.tail)
            if skipped > 0:
                body += f"\n[... {skipped:,} bytes left out ...]\n"
            body += self.tail.decode(errors="replace")
        return body

    def last_line(self) -> str:
        lines = [ln for ln in self.text().splitlines() if ln.strip()]
        return lines[-1].strip() if lines else ""


class ContestantProcess:
    """The sandboxed process that runs the submission, seen from the judge."""

    def __init__(self, job: Job, sandbox_name: str, limits: Limits, deadline: float):
        self.limits = limits
        self.deadline = deadline
        self.sandbox = get_sandbox(sandbox_name)
        ours, theirs = socket.socketpair()
        self.channel = Channel(ours)
        # go/done counters: one call's input revealed at a time, on every device (runner/wire/handshake.py)
        ctl_fd = handshake.control_fd()
        self.control = handshake.Control(ctl_fd)
        read_end, write_end = os.pipe()
        self.proc = self.sandbox.start(
            job, ["-m", "runner.contestant.harness", str(theirs.fileno())], (theirs.fileno(),), write_end
        )
        stem.discard()  # a served judge's stem that this backend did not take
        os.close(write_end)
        theirs.close()
        self.log = ContestantLog(read_end, limits.output_bytes, self.kill)
        self.channel.send_command(
            {"device": job.device, "threads": job.threads, "submission": str(job.submission)},
            (ctl_fd,),
        )
        os.close(ctl_fd)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill(self) -> None:
        # Its process group only while it is not yet reaped: after, the group's id may be a stranger's.
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass

    def request(self, message: dict[str, Any], timeout: float, what: str, fds=()) -> dict[str, Any]:
        """Send a command and wait (blocked, not spinning) for the reply, turning every way the contestant
        can fail into a Stop with a message."""
        self.send(message, what, fds)
        return self.receive(timeout, what)

    def send(self, message: dict[str, Any], what: str, fds=()) -> None:
        try:
            self.channel.send_command(message, fds)
        except (BrokenPipeError, ConnectionResetError):
            raise self._stop_died(what) from None

    def replied(self) -> bool:
        """Whether a reply waits on the socket (read by receive); polled, never blocking."""
        return bool(select.select([self.channel.sock], [], [], 0)[0])

    def receive(self, timeout: float, what: str) -> dict[str, Any]:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self.stop_wall()
        try:
            return self.channel.recv_reply(min(timeout, remaining))
        except TimeoutError:
            self.kill()
            if timeout >= remaining:
                raise self.stop_wall() from None
            raise Stop(
                Verdict.TIMEOUT, f"{what} did not finish within {timeout:g} s (its time limit)"
            ) from None
        except (ChannelClosed, BrokenPipeError, ConnectionResetError):
            raise self._stop_died(what) from None
        except ProtocolError as exc:
            self.kill()
            raise self.broke_protocol(f"{exc} during {what}") from None

    def broke_protocol(self, what: str) -> Stop:
        return Stop(Verdict.FAILED, f"the contestant's process broke the judge's protocol: {what}")

    def stop_wall(self) -> Stop:
        self.kill()
        return Stop(Verdict.TIMEOUT, f"the job ran past its wall-clock limit of {self.limits.wall_s:g} s")

    def _stop_died(self, what: str) -> Stop:
        try:
            code = self.proc.wait(timeout=5)
        except Exception:
            self.kill()
            code = self.proc.wait()
        if self.log.flooded:
            return Stop(
                Verdict.FAILED,
                f"the submission printed more than {self.limits.output_bytes / 2**20:g} MiB (the output limit) and was stopped",
            )
        if code < 0:
            try:
                sig = signal.Signals(-code).name
            except ValueError:  # a real-time signal, or an exit status of 160 and more seen through bwrap
                sig = f"signal {-code}"
            why = {
                "SIGSEGV": "a segmentation fault",
                "SIGKILL": "SIGKILL (memory or process limit, or killed)",
                "SIGXCPU": f"SIGXCPU: it used its {self.limits.cpu_s} s of CPU time (the CPU limit)",
                "SIGXFSZ": f"SIGXFSZ: it wrote a file over {self.limits.file_bytes / 2**20:g} MiB (the file-size limit)",
                "SIGABRT": "an abort",
                "SIGBUS": "a bus error",
            }.get(sig, sig)
            return Stop(Verdict.ERROR, f"the submission's process was killed by {why} during {what}")
        last = self.log.last_line()
        detail = f": {last}" if last else ""
        return Stop(
            Verdict.ERROR, f"the submission's process exited with status {code} during {what}{detail}"
        )

    def close(self) -> None:
        try:
            self.channel.send_command({"op": "exit"})
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except Exception:
            pass
        self.kill()
        try:
            self.proc.wait(timeout=5)
        except Exception:
            pass
        # Whatever else the submission left running is still below the judge (a subreaper): end it too.
        for pid in freeze.descendants():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

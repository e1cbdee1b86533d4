"""The caller's half of the fork server: judges forked from a process that imported torch ahead of the
jobs, so that a job pays no interpreter start-up and no `import torch` (runner/judge/served.py is the
server's half). docs/sandbox.md, "The fork server", has the protocol and the threats."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading

from runner import settings
from runner.sandbox.job import MALLOC_TUNABLES, RUNNER_ROOT, die_with_parent

# What the server process itself starts with. It is also what a contestant forked from it finds in
# /proc/self/environ (the block a process is started with), so nothing of the platform's goes in: the
# judge's own environment arrives per job on its stdin. The two settings that glibc and OpenMP read only
# when a process starts are the contestant's (runner/sandbox: contestant_env).
SERVER_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONPATH": str(RUNNER_ROOT),
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "GOMP_SPINCOUNT": "1000",
    "GLIBC_TUNABLES": MALLOC_TUNABLES,
}


def enabled() -> bool:
    """RUNNER_FORKSERVER=0 turns it off (every judge then starts as `python -m runner.judge`)."""
    return settings.get("RUNNER_FORKSERVER") != "0"


# ---- the caller's side ------------------------------------------------------------------------------


class ServedJudge:
    """A judge forked by the server, with the parts of subprocess.Popen that run_judge uses."""

    def __init__(self, control: socket.socket, stdin, stdout, stderr, pid: int, parent: int):
        self.control, self.stdin, self.stdout, self.stderr = control, stdin, stdout, stderr
        self.pid, self.parent = pid, parent
        self.returncode: int | None = None

    def poll(self) -> int | None:
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        for kill in (os.killpg, os.kill):  # its process group: whatever it started, the contestant too
            try:
                kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.control.settimeout(timeout)
            try:
                data = _recv_exact(self.control, 4)
            except (TimeoutError, BlockingIOError):  # BlockingIOError: a timeout of 0
                raise subprocess.TimeoutExpired("runner.judge", timeout or 0.0) from None
            except (ConnectionError, EOFError):  # the waiter died: the judge was killed with it
                self.returncode = -signal.SIGKILL
            else:
                self.returncode = struct.unpack("<i", data)[0]
            self.control.close()
        return self.returncode


class Server:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self.sock = ours
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "runner.judge.served", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            env=SERVER_ENV,
            cwd=RUNNER_ROOT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        theirs.close()
        if _recv_exact(self.sock, 5) != b"ready":
            raise RuntimeError("the judge's fork server did not start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def spawn(self, env: dict[str, str]) -> ServedJudge:
        """One judge, waiting for its request on its stdin (the environment line is written here)."""
        ours, theirs = socket.socketpair()
        (stdin_r, stdin_w), (stdout_r, stdout_w), (stderr_r, stderr_w) = os.pipe(), os.pipe(), os.pipe()
        stdin, stdout, stderr = os.fdopen(stdin_w, "wb"), os.fdopen(stdout_r, "rb"), os.fdopen(stderr_r, "rb")
        try:
            try:
                socket.send_fds(self.sock, [b"j"], [theirs.fileno(), stdin_r, stdout_w, stderr_w])
            finally:
                theirs.close()
                for fd in (stdin_r, stdout_w, stderr_w):
                    os.close(fd)
            ours.settimeout(
                60
            )  # a server that forks nothing in a minute is broken: the caller goes on without
            pid, parent = struct.unpack("<ii", _recv_exact(ours, 8))
            ours.settimeout(None)
            stdin.write(json.dumps(env).encode() + b"\n")
            stdin.flush()
        except (OSError, EOFError) as exc:
            for f in (stdin, stdout, stderr, ours):
                with contextlib.suppress(OSError):  # a stdin that could not be written cannot be flushed
                    f.close()
            raise RuntimeError(
                f"the judge's fork server did not start a judge ({type(exc).__name__})"
            ) from None
        return ServedJudge(ours, stdin, stdout, stderr, pid, parent)


_servers: dict[int, Server] = {}
_lock = threading.Lock()


def spawn(env: dict[str, str]) -> ServedJudge:
    """A judge for one job, forked from this process's server (started on first use, again if it died)."""
    with _lock:
        server = _servers.get(os.getpid())
        if server is not None and server.alive():
            try:
                return server.spawn(env)
            except (OSError, RuntimeError):
                pass  # it died between jobs: start another, once
        server = _servers[os.getpid()] = Server()
        return server.spawn(env)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data

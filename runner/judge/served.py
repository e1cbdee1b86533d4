"""The fork server's side (runner/sandbox/launch.py is the caller's, and says how the two meet): a process
that imported torch and the judge once, and forks a judge for each job.

    python -m runner.judge.served FD
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import sys

from runner.sandbox.job import die_with_parent


def serve(fd: int) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no process of the same uid reads this one's memory
    # What every judge and contestant would import first; nothing here runs a torch operation, so no
    # thread pool exists to be lost in a fork.
    import torch  # noqa: F401

    import runner.contestant.harness  # noqa: F401
    import runner.judge.__main__  # noqa: F401
    import runner.judge.envinfo  # noqa: F401
    import runner.judge.loop  # noqa: F401
    import runner.sandbox.stem  # noqa: F401

    sock = socket.socket(fileno=fd)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # waiters are reaped by the kernel
    sock.sendall(b"ready")
    while True:
        try:
            _msg, fds, _flags, _addr = socket.recv_fds(sock, 1, 4)
        except (ConnectionError, OSError):
            return
        if not _msg:
            return  # the caller is gone
        if len(fds) != 4:
            for f in fds:
                os.close(f)
            continue
        if os.fork() == 0:
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                sock.close()
                _waiter(*fds)
            finally:
                os._exit(0)
        for f in fds:
            os.close(f)


def _waiter(control_fd: int, stdin: int, stdout: int, stderr: int) -> None:
    control = socket.socket(fileno=control_fd)
    waiter = os.getpid()
    pid = os.fork()
    if pid == 0:
        control.close()
        die_with_parent()  # the caller reads the waiter's death as the judge's: make it so
        if os.getppid() != waiter:
            os._exit(70)
        os.setsid()
        for i, f in enumerate((stdin, stdout, stderr)):
            os.dup2(f, i)
        os.closerange(3, 1 << 16)
        _judge()
        os._exit(70)  # not reached
    for f in (stdin, stdout, stderr):
        os.close(f)
    control.sendall(struct.pack("<ii", pid, os.getpid()))
    pidfd = os.pidfd_open(pid)
    watched = [control.fileno(), pidfd]
    while True:
        ready, _, _ = select.select(watched, [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            try:
                control.sendall(struct.pack("<i", os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            return
        if not control.recv(1):  # the caller closed its end: the job is over or abandoned
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            watched = [pidfd]


def _judge() -> None:
    """The forked judge: as `python -m runner.judge`, once the stem is forked and the environment set."""
    from runner.judge import __main__ as judge_main
    from runner.sandbox import stem

    stem.fork()  # first: nothing of the job is in this process yet
    line = b""
    while not line.endswith(b"\n"):  # read byte by byte: the request after it is the judge's to read
        byte = os.read(0, 1)
        if not byte:
            os._exit(71)
        line += byte
    os.environ.clear()
    os.environ.update(json.loads(line))
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):  # as an exec'd judge's sys.path
        if entry and entry not in sys.path:
            sys.path.append(entry)
    stem.reseed_torch()  # torch's generators are the server's, in every fork
    try:
        judge_main.main()
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    serve(int(sys.argv[1]))

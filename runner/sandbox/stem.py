"""The contestant's stem: a copy of a served judge, forked before the judge reads its request, that later
joins the job's sandbox and forks the contestant there, with no interpreter start-up and no torch import.
docs/sandbox.md, "The fork server", has the steps and what differs from an exec'd contestant."""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import resource
import signal
import socket
import sys

from runner.sandbox import uids
from runner.sandbox.job import die_with_parent, drop_capabilities, first_for_the_oom_killer

CLONE_NEWUSER = 0x10000000
# cgroup, IPC, network, UTS, pid and mount: joined at once, the user namespace after
NAMESPACES = 0x02000000 | 0x08000000 | 0x40000000 | 0x04000000 | 0x20000000 | 0x00020000


class Stem:
    """The judge's handle on its stem."""

    def __init__(self, pid: int, sock: socket.socket):
        self.pid, self.sock = pid, sock

    def discard(self) -> None:
        """This job's contestant starts another way: the stem exits when its socket closes."""
        self.sock.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


_stem: Stem | None = None


def fork() -> None:
    """In a served judge, before it reads anything of its job."""
    global _stem
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # the order arrives whole
    pid = os.fork()
    if pid == 0:
        ours.close()
        _run(theirs)
    theirs.close()
    _stem = Stem(pid, ours)


def take() -> Stem | None:
    """The stem, once, for the backend that starts the contestant from it; None in an exec'd judge."""
    global _stem
    stem, _stem = _stem, None
    return stem


def discard() -> None:
    """After the contestant started: a stem that was not taken goes."""
    stem = take()
    if stem is not None:
        stem.discard()


def become(stem: Stem, order: dict, holder: int, control_fd: int, out_fd: int) -> None:
    """The judge's word: enter the sandbox the holder (a pidfd) lives in, and run the contestant there. A
    pidfd names that one process for as long as it is open, where its pid could name another once it
    ended."""
    socket.send_fds(stem.sock, [json.dumps(order).encode()], [control_fd, out_fd, holder])
    stem.sock.close()


# ---- in the stem ---------------------------------------------------------------------------------


def _run(sock: socket.socket) -> None:
    try:
        os.setsid()  # its own process group, which the judge kills as a whole, and no terminal
        die_with_parent()
        null = os.open("/dev/null", os.O_RDWR)
        for i in (0, 1, 2):
            os.dup2(null, i)
        _close_all_but(0, 1, 2, sock.fileno())
        message, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 3)
        if not message or len(fds) != 3:
            os._exit(0)  # the contestant starts another way (or the judge is gone)
        sock.close()
        control_fd, out_fd, holder = fds
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        _close_all_but(0, 1, 2, holder, control_fd)
        order = json.loads(message)
        _enter(order, holder)
        child = os.fork()
        if child == 0:
            _contestant(order, control_fd)
        os.close(control_fd)
        for i in (1, 2):
            os.dup2(0, i)  # the output pipe closes when the contestant's last copy does
        status = os.waitpid(child, 0)[1]
        while os.WIFSTOPPED(status):
            # Only a tracee reports a stop here: a contestant that made the stem its tracer
            # (PTRACE_TRACEME) is killed, not left stopped or detached from its stem.
            os.kill(child, signal.SIGKILL)
            status = os.waitpid(child, 0)[1]
        code = os.waitstatus_to_exitcode(status)
        os._exit(code if code >= 0 else 128 - code)
    except BaseException as exc:
        try:
            os.write(2, f"sandbox launcher: {type(exc).__name__}: {exc}\n".encode())
        finally:
            os._exit(126)


def _close_all_but(*keep: int) -> None:
    for fd in [int(f) for f in os.listdir("/proc/self/fd")]:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _enter(order: dict, holder: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)

    def check(rc: int, what: str) -> None:
        if rc != 0:
            raise OSError(ctypes.get_errno(), f"{what} failed")

    first_for_the_oom_killer()  # still root outside: the contestant inherits it and cannot lower it
    os.setgroups([])  # the sandbox's user namespace allows no setgroups: none are held from here on
    check(libc.setns(holder, NAMESPACES), "joining the sandbox's namespaces")  # all or none
    os.chdir("/")  # the sandbox's root, which joining its mount namespace made this process's root
    check(libc.setns(holder, CLONE_NEWUSER), "joining the sandbox's user namespace")
    os.close(holder)
    drop_capabilities()  # the bounding and ambient sets, and no-new-privileges
    uid = order["uid"]
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    # The uid change does not clear the capabilities joining the user namespace gave (the kernel clears
    # them only when uid 0 of that namespace is left, and this process never was uid 0 there): clear the
    # effective, permitted and inheritable sets, then make sure nothing is left anywhere.
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    check(libc.capset(header, (ctypes.c_uint32 * 6)()), "clearing the capabilities")


def _check_powerless() -> None:
    """In the contestant, before anything else (the stem, outside the sandbox's pid namespace, has no
    /proc/self there): no capability in any set, and no-new-privileges."""
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        if int(status[field], 16) != 0:
            raise RuntimeError(f"the contestant would keep capabilities ({field}{status[field]})")
    if status["NoNewPrivs"].strip() != "1":
        raise RuntimeError("no-new-privileges is not set")


def _contestant(order: dict, control_fd: int) -> None:
    try:
        _check_powerless()
        # A session of its own, as bwrap's --new-session gives: in the stem's process group it could signal
        # the stem, which lies outside its pid namespace (kill(0, sig) reaches every member of the group).
        os.setsid()
        uids.join_fresh_session_keyring()
        die_with_parent()  # set again: the uid change cleared it
        libc = ctypes.CDLL(None)
        libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1, as an exec'd contestant of its own uid is
        for which, value in order["rlimits"]:
            resource.setrlimit(which, tuple(value))
        os.chdir(order["dir"])
        os.environ.clear()
        os.environ.update(order["env"])
        sys.path.insert(0, order["dir"])  # where `python -m` puts the working folder
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # The server's import caches list host folders (its working folder's files among them): forget
        # them, so that imports list only what the sandbox shows.
        sys.path_importer_cache.clear()
        importlib.invalidate_caches()
        _reseed()
        from runner.contestant import harness as contestant

        sys.argv = [contestant.__file__, str(control_fd)]
        contestant.main()
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _reseed() -> None:
    """Every process forked from one server would draw the same numbers from a global generator seeded
    when the server imported it. Python's `random` reseeds itself in a forked child; torch's and numpy's
    do not (the server does not import numpy.random today: this keeps it so if it ever does)."""
    reseed_torch()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()


def reseed_torch() -> None:
    """torch's default generators, which the server seeded once for all its forks."""
    import torch

    torch.seed()

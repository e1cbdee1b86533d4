"""Dedicated uids for contestants: one per running job, leased by an flock from a range no account uses, so
that a job signals only its own processes, RLIMIT_NPROC counts them alone, and "nothing outlives a job" is
checkable. docs/sandbox.md, "`bwrap`" (User) and "Nothing outlives a job", has the range and why."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import pwd
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from runner import settings


def uid_range() -> range:
    base = int(settings.get("RUNNER_SANDBOX_UID_BASE"))
    return range(base, base + int(settings.get("RUNNER_SANDBOX_UID_COUNT")))


def lock_dir() -> Path:
    return Path(settings.get("RUNNER_SANDBOX_LOCK_DIR"))


def can_switch_uid() -> bool:
    return os.geteuid() == 0


@dataclass
class Lease:
    uid: int
    fd: int

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the file drops the flock
            self.fd = -1


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def acquire() -> Lease:
    """A uid no other job holds, with none of its processes left. Raises RuntimeError when all are taken."""
    directory = lock_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    for uid in uid_range():
        if _has_account(uid):
            continue
        fd = os.open(directory / f"uid-{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        # A lease starts clean, whatever a crashed worker left behind: no process, no key.
        if not kill_all(uid) or not clear_keyrings(uid):
            os.close(fd)
            continue
        return Lease(uid, fd)
    r = uid_range()
    raise RuntimeError(
        f"every sandbox uid ({r.start}-{r.stop - 1}) is in use by a running job; raise RUNNER_SANDBOX_UID_COUNT"
    )


# keyctl(2): the system call's number on the architectures the runner meets; the operations used.
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_GET_PERSISTENT, KEYCTL_CLEAR = 1, 22, 7
KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -2, -4, -5


def clear_keyrings(uid: int) -> bool:
    """Empty the kernel keyrings that belong to uid and outlive its processes: its user keyring, its user
    session keyring and its persistent keyring. A job could otherwise leave keys there for the next job
    leased the same uid (where the contestant shares the host's user namespace: the unshare fallback; bwrap
    gives each job a user namespace, and so keyrings, of its own; docker's seccomp profile refuses keyctl).
    Done by a child that takes the uid, the one way to reach another user's keyrings. True when done, or
    where there is no keyctl to clear with."""
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        return True
    keyctl = ctypes.CDLL(None, use_errno=True).syscall  # resolved here: the child only makes system calls
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            persistent = keyctl(number, KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_PROCESS_KEYRING)
            rings = [KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING] + (
                [persistent] if persistent > 0 else []
            )
            for ring in rings:
                if keyctl(number, KEYCTL_CLEAR, ring) != 0:
                    # A kernel built without keys has none to leave behind.
                    os._exit(0 if ctypes.get_errno() in (errno.ENOSYS, errno.EOPNOTSUPP) else 1)
            os._exit(0)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def join_fresh_session_keyring() -> None:
    """In the process that becomes a contestant, before any submission code: a new, empty session keyring
    of its own. Otherwise it possesses the worker's session keyring (a service manager gives a worker one),
    which every job would share whatever its uid and user namespace: a channel from one job to the next,
    and a view of any key the platform keeps there (found 2026-12-06 by an attack review)."""
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        return
    if ctypes.CDLL(None, use_errno=True).syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EOPNOTSUPP):  # no keyrings in this kernel: nothing to share
            raise OSError(err, "joining a new session keyring failed")


def _uids_of(pid: str) -> tuple[set[int], str]:
    """The real, effective, saved and file-system uids of a process, and its state letter."""
    uids, state = set(), ""
    with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as f:  # Name: any bytes
        for line in f:
            if line.startswith("State:"):
                state = line.split()[1]
            elif line.startswith("Uid:"):
                uids = {int(u) for u in line.split()[1:]}
                break
    return uids, state


def _scan(pool) -> dict[int, list[int]]:
    """Live processes (not zombies) running with a uid of `pool` in any of their uids, by uid, in every pid
    namespace: one pass over /proc."""
    found: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            ids, state = _uids_of(entry.name)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if state in ("Z", "X"):
            continue
        for uid in ids:
            if uid in pool:
                found.setdefault(uid, []).append(int(entry.name))
    return found


def processes_of(uid: int) -> list[int]:
    """Every live process that runs as uid."""
    return _scan({uid}).get(uid, [])


def _kill(pid: int, uid: int) -> None:
    """SIGKILL pid if it still runs as uid: through a pidfd, so that a recycled pid is never hit."""
    try:
        fd = os.pidfd_open(pid)
    except (ProcessLookupError, OSError):
        return
    try:
        if uid in _uids_of(str(pid))[0]:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    finally:
        os.close(fd)


def kill_all(uid: int, timeout_s: float = 10.0) -> bool:
    """Kill every process of uid and wait until none is left. True when none is."""
    deadline = time.monotonic() + timeout_s
    while True:
        pids = processes_of(uid)
        if not pids:
            return True
        if time.monotonic() > deadline:
            return False
        for pid in pids:
            _kill(pid, uid)
        time.sleep(0.01)


def leftovers() -> dict[int, list[int]]:
    """Every live process that runs as a sandbox uid, by uid: empty between jobs."""
    return _scan(uid_range())


def leased() -> list[int]:
    """The uids some running job holds now."""
    held = []
    for uid in uid_range():
        path = lock_dir() / f"uid-{uid}.lock"
        if not path.exists():
            continue
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(uid)
        finally:
            os.close(fd)
    return held

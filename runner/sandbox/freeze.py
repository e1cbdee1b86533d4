"""Freezing the contestant's whole tree (every process below the judge, a child subreaper) between windows
with SIGSTOP, waiting until each stopped thread is off its CPU (`settle`), and reading its CPU time from
/proc: the path without the job's cgroup (runner/sandbox/cgroup.py). docs/harness.md, "Compute is charged,
not only counted", says what /proc misses and how a tree that runs while stopped is caught."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import time
from collections.abc import Iterator, Sequence

TICK_S = 1 / os.sysconf("SC_CLK_TCK")
SETTLE_PAUSE_S = 0.005  # where settle() cannot wait on a thread: over a scheduler tick at HZ 250 and up
_LIBC = ctypes.CDLL(None, use_errno=True)
for _set_id in (_LIBC.setfsuid, _LIBC.setfsgid):
    _set_id.argtypes, _set_id.restype = [ctypes.c_uint32], ctypes.c_uint32
NO_ID = 0xFFFFFFFF  # (uid_t)-1: changes nothing, and the call returns the id in force
settle_pauses = 0  # how often this process paused so (the judge reports it: a judge short of a right shows)


FREEZE_FAILED = "the submission's processes could not be stopped between timed windows"


class FreezeError(Exception):
    """The tree could not be stopped: it kept forking faster than it could be stopped."""


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def descendants(root: int | None = None) -> list[int]:
    """Every process below root (default: this process), alive or not yet reaped, root excluded."""
    root = os.getpid() if root is None else root
    seen: list[int] = []
    todo = _children(root)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        todo.extend(_children(pid))
    return seen


def thread_count(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += len(os.listdir(f"/proc/{pid}/task"))
        except FileNotFoundError:
            pass
    return total


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (field 3, the state, first)."""
    try:
        return _fields(f"/proc/{pid}")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _fields(task: str) -> list[str]:
    """The fields of a process's or thread's stat file after its name, which may hold any bytes."""
    with open(f"{task}/stat", encoding="utf-8", errors="replace") as f:
        return f.read().rsplit(")", 1)[1].split()


def _all_stopped(pids: list[int]) -> bool:
    for pid in pids:
        for task in _tasks(pid):
            try:
                state = _fields(task)[0]
                if state not in ("T", "t", "Z", "X") and not (state == "D" and _waits_for_vfork(task)):
                    return False
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
    return True


def settle(pids: Sequence[int]) -> None:
    """Wait until every thread of the stopped `pids` has left its CPU.

    A thread shows T in /proc a moment before it leaves its CPU, and the kernel adds the CPU time it used
    since the last scheduler tick to the process's clock only as it leaves: a reading taken in that moment
    lags by up to a tick, and the lag shows after the thaw as CPU time used while stopped (CI saw an honest
    kernel charged 0.18 ms so, and failed). Reading /proc/<tid>/syscall makes the kernel wait until the
    thread is off its CPU (wait_task_inactive). Where the judge may not read it, or the kernel may never
    answer (KERNEL_WAITS_SAFELY), a pause of a few ticks stands in (counted in `settle_pauses`)."""
    if KERNEL_WAITS_SAFELY and all([_wait_off_cpu(task) for pid in pids for task in _tasks(pid)]):
        return  # (a list: every thread is waited for, whatever one of them refused)
    global settle_pauses
    settle_pauses += 1
    time.sleep(SETTLE_PAUSE_S)


def _tasks(pid: int) -> list[str]:
    try:
        return [f"/proc/{pid}/task/{tid}" for tid in os.listdir(f"/proc/{pid}/task")]
    except (FileNotFoundError, ProcessLookupError):
        return []


def _kernel_waits_safely(release: str) -> bool:
    """Whether reading a stopped thread's syscall file returns on this kernel. From 6.16 (and in 6.12's
    stable series) wait_task_inactive dequeues a thread whose dequeue was delayed, and on a runqueue throttled
    by a CPU quota (docker's nano_cpus) that never completes: the reader loops unkillably (fixed in 6.12.54 and
    6.18; found by an attack review, from the kernel's history). Delayed dequeue came in 6.12."""
    try:
        major, minor, patch = (int(part) for part in re.findall(r"\d+", release)[:3])
    except ValueError:
        return False
    if (major, minor) < (6, 12) or (major, minor) >= (6, 18):
        return True
    return (major, minor) == (6, 12) and patch >= 54


KERNEL_WAITS_SAFELY = _kernel_waits_safely(os.uname().release)


def _waits_for_vfork(task: str) -> bool:
    """Whether the thread sleeps until its vfork child has exec'd or ended. SIGSTOP cannot stop such a
    parent (it sleeps uninterruptibly) and its child may be stopped before its exec, as Python's subprocess
    does it between windows in a thread: the parent cannot run until the child does, so it is as good as
    stopped, and its pending SIGSTOP, undone by the thaw's SIGCONT, stops it if it wakes. Else every freeze
    in that moment failed after its timeout (an attack review). The kernel names where it sleeps (wchan:
    wait_for_vfork_done, inlined into kernel_clone) only to a reader that may trace it."""
    where = _read(f"{task}/wchan")
    if where == b"0":  # also all a reader without the right is told
        try:
            where = _read_as_owner(task, "wchan")
        except PermissionError:
            return False
    return where in (b"kernel_clone", b"wait_for_vfork_done")


def _wait_off_cpu(task: str) -> bool:
    """Read the thread's `syscall` file, which the kernel answers once the thread is off its CPU. False
    where the judge may not read it (a contestant that made itself undumpable) and the thread lives."""
    try:
        try:
            _read(f"{task}/syscall")
        except PermissionError:
            _read_as_owner(task, "syscall")
    except (FileNotFoundError, ProcessLookupError):
        pass  # it ended: its time is all counted
    except PermissionError:
        try:
            return _fields(task)[0] in ("Z", "X")  # off every CPU for good (a zombie's file is root's)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return True


def _read_as_owner(task: str, name: str) -> bytes:
    """A file of the thread that asks for its owner's rights, or the right to trace it (`syscall`, mode
    0400; what `wchan` names). A judge that runs as root with neither CAP_DAC_OVERRIDE nor CAP_SYS_PTRACE
    (docker's, which keeps only what it needs) has neither over a contestant of another uid, so for this one
    read it takes the thread's uid and gid as its file-system ids (setfsuid, this thread only; CAP_SETUID,
    which it holds to start the contestant), as a process of that uid may read it. The change of ids, like
    any, makes the judge undumpable and clears this thread's parent-death signal: docker's judge is both
    already; the exec'd judges are root with every capability and are never refused. Raises
    PermissionError where that does not help either."""
    if os.geteuid() != 0:
        raise PermissionError(f"{task}/{name}: not this process's to read")
    owner = os.stat(task)
    with _file_system_ids(owner.st_uid, owner.st_gid):
        return _read(f"{task}/{name}")


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 256)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _file_system_ids(uid: int, gid: int) -> Iterator[None]:
    """This thread's file-system ids as (uid, gid) meanwhile. setfsuid reports no error, only the id it
    replaced: each change is read back (an id of -1 changes nothing), and a judge that cannot return to
    root's ids stops rather than go on as the contestant."""
    try:
        _LIBC.setfsgid(gid)
        _LIBC.setfsuid(uid)
        if (_LIBC.setfsuid(NO_ID), _LIBC.setfsgid(NO_ID)) != (uid, gid):
            raise PermissionError(f"could not take the file-system ids {uid}:{gid}")
        yield
    finally:
        _LIBC.setfsuid(0)
        _LIBC.setfsgid(0)
        if (_LIBC.setfsuid(NO_ID), _LIBC.setfsgid(NO_ID)) != (0, 0):
            raise RuntimeError("the judge could not take back root's file-system ids")


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def freeze(known: Sequence[int] = (), timeout: float = 2.0) -> list[int]:
    """Stop every process below this one and wait until every thread has stopped; a process forked while
    the tree was being stopped is stopped too. The `known` pids (the last freeze's) still in the tree are
    stopped first, at once, before the tree is walked again for new ones: one that left it has ended, and
    its pid may be another process's by now. Returns the pids once every thread is off its CPU (settle),
    so that their CPU clocks are final. Raises FreezeError past `timeout`."""
    deadline = time.monotonic() + timeout
    tree = set(descendants())
    pids = [p for p in known if p in tree]
    _signal(pids, signal.SIGSTOP)
    while True:
        new = [p for p in descendants() if p not in pids]
        # The last walk again, once all is stopped: a vfork parent counts as stopped (_waits_for_vfork) from
        # the moment it sleeps, and its child, which a SIGSTOP sent late in the fork does not reach, may
        # have joined its children after the walk read them; with every parent stopped, the walk is whole
        # (found by an attack review: a child ran off the clock in 4 of 40 freezes).
        if not new and _all_stopped(pids) and set(descendants()) <= set(pids):
            settle(pids)
            return pids
        _signal(new, signal.SIGSTOP)
        pids += new
        if time.monotonic() > deadline:
            _signal(pids, signal.SIGKILL)
            raise FreezeError(FREEZE_FAILED)
        if not new:
            time.sleep(0.0001)


def thaw(pids: list[int]) -> None:
    _signal(pids, signal.SIGCONT)


def cpu_seconds(pids: list[int]) -> tuple[float, set[int]]:
    """(CPU seconds, the pids alive) of the processes `pids`, the sandbox's own included (the contestant
    could take one over): each process's own CPU clock (every thread, those that ended included) plus what
    its reaped children used (`cutime`, `cstime`). The children's share, and a process not yet reaped, are
    known to the clock tick only; a window in which a process ended is charged a tick more for it (see
    Judge._cpu_window), never less."""
    total, alive = 0.0, set()
    for pid in pids:
        fields = _stat(pid)
        if fields is None:
            continue
        children = (int(fields[13]) + int(fields[14])) * TICK_S
        if fields[0] in ("Z", "X"):
            total += (int(fields[11]) + int(fields[12])) * TICK_S + children
            continue
        try:
            own = time.clock_gettime_ns(((~pid) << 3) | 2) * 1e-9  # CPUCLOCK_SCHED of the process
        except OSError:  # it ended between the two reads
            own = (int(fields[11]) + int(fields[12])) * TICK_S
        total += own + children
        alive.add(pid)
    return total, alive

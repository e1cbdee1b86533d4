"""The job's cgroup (cgroup v2): every process the contestant ever ran, counted by the kernel.

Reading the contestant's CPU time from /proc (runner/freeze.py) misses two things a submission controls. A
process's CPU time reaches its parent's account only when the parent waits for it: a child the kernel reaps
by itself (its parent ignores SIGCHLD or set SA_NOCLDWAIT) takes its CPU time with it, so a helper that
worked before a window and is killed inside it lowers the window's charge, and workers forked and ended
inside a window are never charged at all. And a walk of the process tree can miss a process whose parent
exits while the walk is under way. A cgroup counts the CPU time of every process in it as it is used, the
ones reaped since included, and lists every live process whatever its parentage.

So execute() makes one per job under RUNNER_CGROUP_PARENT (default: `kernelboard` at the root of the cgroup
v2 hierarchy), the judge moves the contestant's processes into it before the submission is imported (their
children are born in it and cannot leave it: the sandbox has no cgroup file system, and the files are
root's), charges each window from its `cpu.stat`, freezes it between windows (`cgroup.freeze`), and
execute() removes it after the job with whatever is left in it. A host without a writable cgroup v2 hierarchy (no root, a
container, cgroup v1 only) gives none: the judge then reads /proc and the report says so.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from pathlib import Path


def _v2_mount() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host)."""
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 2 and fields[2] == "cgroup2":
                    return Path(fields[1])
    except OSError:
        pass
    return None


def parent() -> Path | None:
    configured = os.environ.get("RUNNER_CGROUP_PARENT")
    if configured:
        return Path(configured)
    mount = _v2_mount()
    return mount / "kernelboard" if mount else None


def create() -> Path | None:
    """A new, empty cgroup for one job, or None where this host gives the worker none."""
    base = parent()
    if base is None:
        return None
    path = base / job_name(os.getpid())
    try:
        base.mkdir(exist_ok=True)
        path.mkdir()
    except OSError:
        return None
    _remove_orphans(base)
    if not ((path / "cpu.stat").exists() and (path / "cgroup.freeze").exists()):
        path.rmdir()
        return None
    return path


def job_name(pid: int) -> str:
    """A job's cgroup is named for the pid of the worker that made it, in that worker's pid namespace
    (workers in containers may share one parent), and made unique by a random token."""
    return f"job-{_pid_namespace()}-{pid}-{secrets.token_hex(4)}"


def _pid_namespace() -> int:
    return os.stat("/proc/self/ns/pid").st_ino


def _remove_orphans(base: Path) -> None:
    """The empty cgroups of workers of this pid namespace that died mid-job (killed, so their cleanup never
    ran). One whose maker's pid was reused stays until that pid is free again; one that still holds
    processes stays too; another namespace's are its workers' to judge."""
    for stale in base.glob(f"job-{_pid_namespace()}-*-*"):
        maker = stale.name.split("-")[2]
        if maker.isdigit() and not os.path.exists(f"/proc/{maker}"):
            try:
                stale.rmdir()
            except OSError:
                pass


def add(path: Path, pids: list[int]) -> None:
    """Move these processes (each with all its threads) into the cgroup. Raises OSError where not allowed."""
    for pid in pids:
        try:
            with open(path / "cgroup.procs", "w") as f:
                f.write(str(pid))  # one pid per write: the kernel reads one
        except ProcessLookupError:
            pass  # it ended meanwhile


def freeze(path: Path, timeout: float = 2.0) -> None:
    """Freeze every process in the cgroup (the cgroup v2 freezer) and wait until all are frozen. Raises
    TimeoutError past `timeout`. Unlike SIGSTOP, which any SIGCONT undoes (one from a timer the submission
    armed included), nothing a frozen process arranged can wake it, and it covers processes forked meanwhile."""
    (path / "cgroup.freeze").write_text("1")
    deadline = time.monotonic() + timeout
    while "frozen 1" not in (path / "cgroup.events").read_text().splitlines():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not freeze within {timeout:g} s")
        time.sleep(0.0001)


def thaw(path: Path) -> None:
    (path / "cgroup.freeze").write_text("0")


def pids(path: Path) -> list[int]:
    """Every live process in the cgroup."""
    return [int(p) for p in (path / "cgroup.procs").read_text().split()]


def cpu_seconds(path: Path) -> float:
    """The CPU time of every process that was ever in the cgroup, user and system, to the microsecond."""
    for line in (path / "cpu.stat").read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) * 1e-6
    raise OSError(f"{path}/cpu.stat has no usage_usec")


def remove(path: Path, timeout: float = 5.0) -> None:
    """Kill whatever still runs in the cgroup and remove it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # busy: processes remain (or are still dying)
            if time.monotonic() > deadline:
                raise
        try:
            _kill_all(path)
        except FileNotFoundError:
            return
        time.sleep(0.01)


def _kill_all(path: Path) -> None:
    """SIGKILL every process in the cgroup: at once through cgroup.kill (Linux 5.14), which a process forking
    as fast as it can cannot outrun, else one listed pid at a time."""
    kill = path / "cgroup.kill"
    if kill.exists():
        kill.write_text("1")
        return
    for pid in pids(path):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

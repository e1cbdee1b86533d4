"""The job's cgroup (v2; v1 too for memory and pids on a hybrid host): every process the contestant ever
ran, its CPU time counted by the kernel, frozen as one between windows, its memory and processes bounded as
a whole. docs/harness.md, "Compute is charged, not only counted", says what /proc misses and why this
exists; docs/sandbox.md, "`bwrap`" (the job's cgroup), how it is made, bounded and removed."""

from __future__ import annotations

import os
import secrets
import signal
import time
from pathlib import Path

from runner import settings
from runner.limits import Limits

BOUNDED = ("memory", "pids")  # the controllers that bound a job


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


def _v1_mounts() -> dict[str, Path]:
    """Where each cgroup v1 controller of BOUNDED is mounted, on a host that keeps it in v1."""
    found: dict[str, Path] = {}
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 3 and fields[2] == "cgroup":
                    for controller in set(fields[3].split(",")) & set(BOUNDED):
                        found[controller] = Path(fields[1])
    except OSError:
        pass
    return found


def parent() -> Path | None:
    configured = settings.get("RUNNER_CGROUP_PARENT")
    if configured:
        return Path(configured)
    mount = _v2_mount()
    return mount / "kernelboard" if mount else None


def create(limits: Limits | None = None) -> Path | None:
    """A new, empty cgroup for one job, or None where this host gives the worker none. With `limits`, it
    bounds the job's memory and processes where the host lets it (`bound`)."""
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
    if limits is not None:
        bound(path, limits)
    return path


def bound(path: Path, limits: Limits) -> None:
    """Bound the job's memory (all its processes together, tmpfs pages included, no swap) and its processes,
    in the v2 cgroup where its controllers are delegated to the worker, else in a v1 cgroup of the same
    name per controller. Best effort: a bound the host does not give is not set, and `bounds` says so."""
    memory = {"memory.max": limits.job_memory_bytes, "memory.swap.max": 0, "memory.oom.group": 1}
    v2 = {"memory": memory, "pids": {"pids.max": limits.processes}}
    v1 = {
        "memory": {
            "memory.limit_in_bytes": limits.job_memory_bytes,
            "memory.memsw.limit_in_bytes": limits.job_memory_bytes,
        },
        "pids": {"pids.max": limits.processes},
    }
    for controller in BOUNDED:
        if _enable(path.parent, controller):
            _write_all(path, v2[controller])
    for controller, sibling in _make_siblings(path).items():
        _write_all(sibling, v1[controller])


def _enable(base: Path, controller: str) -> bool:
    """Turn a v2 controller on for the jobs under `base` (and for `base` itself, where its parent is the
    hierarchy's root, which the worker may write as root). False where the host does not delegate it."""
    for level in (base.parent, base):
        try:
            if controller not in (level / "cgroup.subtree_control").read_text().split():
                (level / "cgroup.subtree_control").write_text(f"+{controller}")
        except OSError:
            pass
    try:
        return controller in (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _write_all(path: Path, values: dict[str, int]) -> None:
    for name, value in values.items():
        try:
            (path / name).write_text(str(value))
        except OSError:  # e.g. no swap accounting: memory.memsw.* or memory.swap.max is absent
            pass


def _make_siblings(path: Path) -> dict[str, Path]:
    """The job's cgroups in the v1 hierarchies of the controllers that v2 does not hold here."""
    made = {}
    for controller, mount in _v1_mounts().items():
        sibling = mount / "kernelboard" / path.name
        try:
            sibling.parent.mkdir(exist_ok=True)
            sibling.mkdir()
        except OSError:
            continue
        _remove_orphans(sibling.parent)
        made[controller] = sibling
    return made


def siblings(path: Path) -> list[Path]:
    """The job's v1 cgroups that `bound` made (none where v2 holds every controller)."""
    return [s for mount in _v1_mounts().values() if (s := mount / "kernelboard" / path.name).is_dir()]


def bounds(path: Path) -> dict[str, int]:
    """The bounds the job runs under, read back from the kernel: what the report says was enforced."""
    out: dict[str, int] = {}
    places = [
        (path, "memory.max", "memory_bytes"),
        (path, "pids.max", "processes"),
        *[(s, "memory.limit_in_bytes", "memory_bytes") for s in siblings(path)],
        *[(s, "pids.max", "processes") for s in siblings(path)],
    ]
    for where, name, key in places:
        try:
            value = (where / name).read_text().strip()
        except OSError:
            continue
        if value.isdigit():
            out[key] = int(value)
    return out


def oom_kills(path: Path) -> int:
    """How many of the job's processes the kernel's OOM killer ended because the job ran out of memory."""
    total = 0
    for events in [path / "memory.events", *[s / "memory.oom_control" for s in siblings(path)]]:
        try:
            for line in events.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip().isdigit():
                    total += int(value)
        except OSError:
            pass
    return total


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
    """Move these processes (each with all its threads) into the cgroup, and into its v1 siblings where the
    job has any. Raises OSError where not allowed."""
    for where in [*siblings(path), path]:
        for pid in pids:
            try:
                with open(where / "cgroup.procs", "w") as f:
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
    """Kill whatever still runs in the cgroup and remove it, with its v1 siblings (emptied with it)."""
    extra = siblings(path)
    deadline = time.monotonic() + timeout
    while True:
        try:
            path.rmdir()
            break
        except FileNotFoundError:
            break
        except OSError:  # busy: processes remain (or are still dying)
            if time.monotonic() > deadline:
                raise
        try:
            _kill_all(path)
        except FileNotFoundError:
            break
        time.sleep(0.01)
    for sibling in extra:
        while True:
            try:
                sibling.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # its last processes are still being reaped
                if time.monotonic() > deadline:
                    raise
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

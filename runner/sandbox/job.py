"""A job as every backend sees it (Job, JudgeRun, Process), and how a contestant is confined whatever the
backend: its environment, rlimits, capabilities, the OOM killer's first choice, death with its parent.
Imports nothing of the runner's processes, so every side of a job may use it (docs/architecture.md)."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from runner.limits import Limits

RUNNER_ROOT = Path(__file__).resolve().parent.parent.parent  # the folder that holds the runner package


@dataclass
class Job:
    """The job's own directory: the submission, task.py, and a writable scratch folder; and on a CPU the
    job's cgroup, where the host gives one (runner/sandbox/cgroup.py)."""

    dir: Path
    submission: Path
    scratch: Path
    device: str
    threads: int
    limits: Limits
    cgroup: Path | None = None


@dataclass
class JudgeRun:
    """What the judge process left: its stdout (the report), the tail of its stderr, and whether it had to
    be killed at the job's hard wall-clock limit."""

    out: bytes
    err: bytes
    timed_out: bool = False
    returncode: int | None = None  # the judge's exit status (negative: killed by that signal)


class Process(Protocol):
    """A started process as the caller and the judge use it: subprocess.Popen, or a forked one
    (runner/sandbox/launch.py's ServedJudge, runner/sandbox/bwrap.py's ForkedContestant)."""

    pid: int
    returncode: int | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


# Called with each piece of the judge's stdout as it arrives (execute() reads the case frames off it), from
# the thread that reads the stream; it must not block for long.
OnOut = Callable[[bytes], None]

MALLOC_TUNABLES = "glibc.malloc.trim_threshold=17179869184:glibc.malloc.mmap_threshold=33554432"


def contestant_env(job: Job, python_path: str) -> dict[str, str]:
    """A scrubbed environment: nothing of the platform's (no secrets, no settings) reaches the contestant."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(job.scratch),
        "TMPDIR": str(job.scratch),
        "PYTHONPATH": python_path,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": str(job.threads),
        "MKL_NUM_THREADS": str(job.threads),
        # OpenMP workers spin for a short while after a parallel region, not libgomp's default ~300,000
        # rounds: a spinning worker burns CPU time that a window is charged for, after every call now that
        # the judge writes each call's input between calls (docs/harness.md).
        "GOMP_SPINCOUNT": "1000",
        "TRITON_CACHE_DIR": str(job.scratch / ".triton"),
        "LANG": "C.UTF-8",
        # Freed memory stays in the heap instead of going back to the kernel: otherwise a call that
        # allocates its output pays page faults whenever glibc last trimmed the heap, which on a VM
        # costs up to 30 times the kernel itself, at random calls (measured: docs/bench/history.md).
        "GLIBC_TUNABLES": MALLOC_TUNABLES,
    }
    if job.device == "cuda" and "CUDA_VISIBLE_DEVICES" in os.environ:
        env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
    return env


def rlimits(limits: Limits, device: str) -> list[tuple[int, tuple[int, int]]]:
    """The per-process limits every backend sets on the contestant. The CPU limit's hard value lies a little
    above the soft one: at the soft limit the kernel sends SIGXCPU, which the judge names; were they equal,
    the kernel would send a bare SIGKILL instead."""
    out = [
        (resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5)),
        (resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes)),
        (resource.RLIMIT_CORE, (0, 0)),
        # Descriptors are counted per process against one table for the whole host (fs.file-max): with
        # the process limit this bounds what one job can hold (Limits.job_files).
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
    ]
    if device == "cpu":  # a CUDA context reserves far more address space than it uses
        out.append((resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes)))
    return out


def drop_capabilities() -> None:
    """In a child before exec, as root: empty the capability bounding set and the ambient set, so that the
    program it execs holds no capability at all (a root without CAP_SYS_PTRACE cannot read a non-dumpable
    judge's memory or descriptors, nor those of a caller that holds every capability), and set
    no-new-privileges so that no setuid program gives any back."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    for cap in range(64):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP; past the last capability it fails, harmlessly
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")


def first_for_the_oom_killer() -> None:
    """In a child before it drops root: when memory runs out, the kernel's OOM killer ends this process and
    what it forks before anything else (the judge, the worker, a database). Written while the process still
    holds CAP_SYS_RESOURCE, the value is also its floor: the contestant cannot lower it again."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:  # no /proc here: the job's memory bound still holds where there is one
        pass


def die_with_parent() -> None:
    """In a child before exec: SIGKILL it when the judge dies, however the judge dies."""
    import ctypes

    ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL

"""Every limit a job runs under, per mode, in one place. Reported in the RunReport; a verdict that comes
from a limit names it (the judge names the time, CPU and output limits itself; `name_limit` adds the others,
which reach the judge only as the error the contestant got).

An operator may change any of them for every mode with RUNNER_LIMITS, a JSON object of field names and
values, e.g. RUNNER_LIMITS='{"memory_bytes": 8589934592}'; the tests use it to reach a limit quickly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace

from runner import settings


@dataclass(frozen=True)
class Limits:
    wall_s: float  # the whole job, from start to report
    call_s: float  # one custom_kernel call, or a window of them
    import_s: float  # importing the submission (torch, triton and whatever it compiles at import)
    cpu_s: int  # CPU time of the contestant (RLIMIT_CPU)
    memory_bytes: int  # address space of each contestant process (RLIMIT_AS)
    output_bytes: int  # what the contestant may print before it is stopped
    scratch_bytes: int  # its writable scratch directory
    file_bytes: int  # largest file it may write (RLIMIT_FSIZE)
    processes: int  # processes and threads of the job (RLIMIT_NPROC of its uid, pids.max) / container pids
    open_files: int  # descriptors of each contestant process (RLIMIT_NOFILE)
    job_memory_bytes: int  # memory of all its processes together, tmpfs pages included (memory cgroup)
    shm_bytes: int  # its /dev/shm (a tmpfs of that size, counted in the job's memory)
    case_budget_s: float  # timed seconds a benchmark case may use before it stops anyway
    max_calls: int  # timed calls per case at most
    source_bytes: int = 1 << 20  # the submission's size: 1 MiB, as GPU MODE's KernelBot takes

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def job_files(self) -> int:
        """The most descriptors one job can hold open at once: every process at its own limit."""
        return self.processes * self.open_files


GiB = 1 << 30
MiB = 1 << 20

_BASE = Limits(
    wall_s=300,
    call_s=60,
    import_s=180,
    cpu_s=600,
    memory_bytes=16 * GiB,
    output_bytes=4 * MiB,
    scratch_bytes=256 * MiB,
    file_bytes=256 * MiB,
    processes=256,
    # At most processes x open_files = 262,144 descriptors per job (a tenth of a 2.4 M fs.file-max): 1,024
    # is Linux's usual soft limit, which torch, inductor's workers and ninja live with.
    open_files=1024,
    job_memory_bytes=16 * GiB,
    shm_bytes=64 * MiB,
    case_budget_s=2.0,
    max_calls=100_000,
)

MODE_LIMITS = {
    "test": replace(_BASE, wall_s=180, case_budget_s=0.0),
    "benchmark": replace(_BASE, wall_s=420),
    "leaderboard": replace(_BASE, wall_s=900),
    "profile": replace(_BASE, wall_s=300, case_budget_s=0.0),  # untimed: a few calls per case
}


def limits_for(mode: str, case_budget_s: float | None = None, call_s: float | None = None) -> Limits:
    """The mode's limits, with the two a job may lower (tests and agents use shorter ones)."""
    limits = replace(MODE_LIMITS[mode], **_overrides())
    if case_budget_s is not None and mode not in ("test", "profile"):
        limits = replace(limits, case_budget_s=min(case_budget_s, limits.case_budget_s * 10))
    if call_s is not None:
        limits = replace(limits, call_s=min(call_s, limits.call_s))
    return limits


def _overrides() -> dict:
    raw = settings.get("RUNNER_LIMITS")
    if not raw:
        return {}
    try:
        values = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"RUNNER_LIMITS is not a JSON object: {exc}") from None
    known = {f.name: f.type for f in fields(Limits)}
    if not isinstance(values, dict) or not set(values) <= set(known):
        raise ValueError(f"RUNNER_LIMITS may set only {', '.join(known)}; got {raw}")
    if not all(isinstance(v, (int, float)) and v > 0 for v in values.values()):
        raise ValueError(f"RUNNER_LIMITS values must be positive numbers; got {raw}")
    return {k: (int(v) if known[k] == "int" else float(v)) for k, v in values.items()}


def _size(n: int) -> str:
    return f"{n / GiB:g} GiB" if n >= GiB else f"{n / MiB:g} MiB"


# What the contestant sees when a limit of its sandbox stops it: (signs in the message, which limit); a sign
# that is a tuple needs all of its parts
LIMIT_SIGNS: tuple[tuple[tuple[str | tuple[str, ...], ...], Callable[[Limits], str]], ...] = (
    (
        ("MemoryError", "Cannot allocate memory", "can't allocate memory", "std::bad_alloc", "[Errno 12]"),
        lambda lim: f"the memory limit of {_size(lim.memory_bytes)} was reached",
    ),
    (
        (("No space left on device", "/dev/shm"),),
        lambda lim: f"its /dev/shm is full: the /dev/shm limit of {_size(lim.shm_bytes)} was reached",
    ),
    (
        # A write that fails names no file: scratch, the usual place, or else /dev/shm
        ("No space left on device", "[Errno 28]", "Disk quota exceeded"),
        lambda lim: (
            f"its scratch space is full: the scratch limit of {_size(lim.scratch_bytes)} was reached, "
            f"or /dev/shm's limit of {_size(lim.shm_bytes)}"
        ),
    ),
    (
        ("File too large", "[Errno 27]"),
        lambda lim: f"the file-size limit of {_size(lim.file_bytes)} was reached",
    ),
    (
        ("Too many open files in system", "[Errno 23]"),
        lambda lim: (
            "the host's table of open files is full: the submission's processes hold too many; "
            f"the limit is {lim.open_files:,} open files per process"
        ),
    ),
    (
        ("Too many open files", "[Errno 24]"),
        lambda lim: f"the limit of {lim.open_files:,} open files per process was reached",
    ),
    (
        ("can't start new thread", "Resource temporarily unavailable", "[Errno 11]"),
        lambda lim: f"the limit of {lim.processes} processes and threads was reached",
    ),
)


def _parts(sign: str | tuple[str, ...]) -> tuple[str, ...]:
    return (sign,) if isinstance(sign, str) else sign


def name_limit(message: str, limits: Limits) -> str:
    """The verdict's one line, with the limit it shows was hit named in the user's words."""
    if not message or "limit" in message:
        return message
    for signs, name in LIMIT_SIGNS:
        if any(all(part in message for part in _parts(sign)) for sign in signs):
            return f"{message} ({name(limits)})"
    return message

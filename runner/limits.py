"""Every limit a job runs under, per mode, in one place. Reported in the RunReport; a verdict that comes
from a limit names it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace


@dataclass(frozen=True)
class Limits:
    wall_s: float  # the whole job, from start to report
    call_s: float  # one custom_kernel call, or a window of them, or the import
    cpu_s: int  # CPU time of the contestant (RLIMIT_CPU)
    memory_bytes: int  # address space of the contestant (RLIMIT_AS) / container memory
    output_bytes: int  # what the contestant may print before it is stopped
    scratch_bytes: int  # its writable scratch directory
    file_bytes: int  # largest file it may write (RLIMIT_FSIZE)
    processes: int  # processes and threads of its user (RLIMIT_NPROC) / container pids limit
    case_budget_s: float  # timed seconds a benchmark case may use before it stops anyway
    max_calls: int  # timed calls per case at most
    source_bytes: int = 256 * 1024  # the submission's size

    def to_dict(self) -> dict:
        return asdict(self)


GiB = 1 << 30
MiB = 1 << 20

_BASE = Limits(
    wall_s=300,
    call_s=60,
    cpu_s=600,
    memory_bytes=16 * GiB,
    output_bytes=4 * MiB,
    scratch_bytes=256 * MiB,
    file_bytes=256 * MiB,
    processes=256,
    case_budget_s=2.0,
    max_calls=100_000,
)

MODE_LIMITS = {
    "test": replace(_BASE, wall_s=180, case_budget_s=0.0),
    "benchmark": replace(_BASE, wall_s=420),
    "leaderboard": replace(_BASE, wall_s=900),
}


def limits_for(mode: str, case_budget_s: float | None = None, call_s: float | None = None) -> Limits:
    """The mode's limits, with the two a job may lower (tests and agents use shorter ones)."""
    limits = MODE_LIMITS[mode]
    if case_budget_s is not None and mode != "test":
        limits = replace(limits, case_budget_s=min(case_budget_s, limits.case_budget_s * 10))
    if call_s is not None:
        limits = replace(limits, call_s=min(call_s, limits.call_s))
    return limits

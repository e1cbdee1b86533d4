"""The platform's domain words, each defined once: modes, case kinds, verdicts, case statuses and device
kinds. The runner, the Django models, settings, the API's schema, the command-line client and the pages
all derive theirs from here (tests/runner/test_vocabulary.py checks that they agree). Standard library only:
the platform's client imports it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Mode(StrEnum):
    TEST = "test"  # correctness only
    BENCHMARK = "benchmark"  # timed, every output checked
    LEADERBOARD = "leaderboard"  # tests, benchmarks, then a secret run of the benchmarks; only this ranks
    PROFILE = (
        "profile"  # the benchmarks, a few checked calls each under the torch profiler; untimed, never ranked
    )

    @property
    def label(self) -> str:
        return {
            "test": "Test (correctness)",
            "benchmark": "Benchmark (timed)",
            "leaderboard": "Leaderboard (ranked)",
            "profile": "Profile (per-operator tables)",
        }[self.value]


class CaseKind(StrEnum):
    TEST = "test"
    BENCHMARK = "benchmark"
    SECRET = "secret"  # the benchmarks again, on inputs from a seed derived inside the judge
    RUN = "run"  # not a case: the whole run, when it ended before any case could say why


def case_plan(mode: str) -> tuple[CaseKind, ...]:
    """The kinds of case a mode runs, in order: the one plan the judge, the pytest plugin and the pages use."""
    return {
        Mode.TEST: (CaseKind.TEST,),
        Mode.BENCHMARK: (CaseKind.BENCHMARK,),
        Mode.LEADERBOARD: (CaseKind.TEST, CaseKind.BENCHMARK, CaseKind.SECRET),
        Mode.PROFILE: (CaseKind.BENCHMARK,),
    }[Mode(mode)]


PROFILE_CALLS = 3  # calls of custom_kernel per case in profile mode, each on fresh inputs and checked


def scored_kind(mode: str) -> CaseKind:
    """The cases whose times make a run's score: the secret run's in leaderboard mode, else the benchmarks
    (a profile run's benchmarks are untimed, so it never has a score)."""
    return CaseKind.SECRET if mode == Mode.LEADERBOARD else CaseKind.BENCHMARK


class Verdict(StrEnum):
    """A run's final verdict, and a submission's final state (see docs/report.md)."""

    PASSED = "passed"  # every case ran and every checked output agreed with the reference
    FAILED = "failed"  # the submission ran but an output was wrong or it broke a rule of the harness
    ERROR = "error"  # the submission crashed: it did not import, raised, or its process died
    TIMEOUT = "timeout"  # a time limit of the mode was hit
    REJECTED = "rejected"  # refused before running: unreadable, too big, a syntax error, no custom_kernel
    FLAGGED = "flagged"  # the outputs were right but the result is suspect; kept out of rankings


def passed(
    verdict: str, *, flags: int = 0, statuses: tuple[str, ...] = (), platform_fault: bool = False
) -> bool:
    """Whether a run passed: the one decision behind the command line's exit status, the pytest plugin's
    session, the platform's pass counts and the agents' rewards. The verdict must say `passed`, and nothing
    beside it may say otherwise: no flag, no case that did not pass, no fault of the platform. A report
    that contradicts itself did not pass. Plain values, so that the platform's client can ask too."""
    return (
        verdict == Verdict.PASSED
        and not flags
        and not platform_fault
        and all(status == CaseStatus.PASSED for status in statuses)
    )


class CaseStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    FLAGGED = "flagged"
    SKIPPED = "skipped"  # not run: the run stopped before it


@dataclass(frozen=True)
class DeviceKind:
    """A kind of device a submission is judged on: one queue, one ranking, one physical floor."""

    key: str  # the queue's and the ranking's name
    label: str  # for people
    runner_device: str  # torch's name for it: every GPU is "cuda" (ROCm builds too)
    part: str  # the part the peaks are for
    bytes_per_s: float  # peak memory bandwidth
    flops_per_s: float  # peak dense fp16/bf16 arithmetic
    source: str  # where the peaks come from


# GPU peaks are the vendors' datasheets (dense fp16/bf16 tensor throughput, HBM bandwidth), the highest each
# chip reaches for these problems' dtypes. The CPU row was measured on the idle 2-core development machine
# (AMD EPYC): 33.9 GB/s copy, 100 GFLOP/s fp32 matmul (`python -m runner.bench floor`, docs/benchmarks.md),
# times 8 so that a larger CPU is not flagged.
DEVICE_KINDS: dict[str, DeviceKind] = {
    d.key: d
    for d in (
        DeviceKind(
            "cpu",
            "CPU",
            "cpu",
            "CPU",
            8 * 33.9e9,
            8 * 100e9,
            "measured by python -m runner.bench floor, x8 margin",
        ),
        DeviceKind(
            "h100",
            "NVIDIA H100",
            "cuda",
            "NVIDIA H100 SXM5",
            3.35e12,
            989e12,
            "NVIDIA H100 datasheet: 3.35 TB/s HBM3, 989 TFLOPS fp16 dense",
        ),
        DeviceKind(
            "h200",
            "NVIDIA H200",
            "cuda",
            "NVIDIA H200 SXM",
            4.8e12,
            989e12,
            "NVIDIA H200 datasheet: 4.8 TB/s HBM3e, 989 TFLOPS fp16 dense",
        ),
        DeviceKind(
            "a100",
            "NVIDIA A100",
            "cuda",
            "NVIDIA A100 80GB SXM",
            2.039e12,
            312e12,
            "NVIDIA A100 datasheet: 2,039 GB/s, 312 TFLOPS fp16 dense",
        ),
        DeviceKind(
            "b200",
            "NVIDIA B200",
            "cuda",
            "NVIDIA B200",
            8.0e12,
            2.25e15,
            "NVIDIA B200 datasheet: 8 TB/s HBM3e, 2.25 PFLOPS fp16 dense",
        ),
        DeviceKind(
            "mi300x",
            "AMD MI300X",
            "cuda",
            "AMD Instinct MI300X",
            5.3e12,
            1.307e15,
            "AMD MI300X datasheet: 5.3 TB/s, 1,307 TFLOPS fp16 dense",
        ),
    )
}

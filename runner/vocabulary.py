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


# The platform's exploration tier (docs/platform.md, "The exploration tier"): a submission mode for an agent's
# candidates, judged as a benchmark run (timed, every output checked), on a queue and a quota of its own per
# device kind, never ranked. The runner never sees the word: a worker hands it `judged_as(mode)`.
EXPLORE = "explore"
EXPLORE_LABEL = "Explore (candidates: timed, never ranked)"
SUBMISSION_MODES: tuple[str, ...] = (*(m.value for m in Mode), EXPLORE)  # what the platform accepts
EXPLORE_QUEUE_SUFFIX = ".explore"  # the exploration queue of a device kind: "cpu.explore"


def judged_as(mode: str) -> Mode:
    """The runner's mode for a submission's mode: an exploration candidate is judged as a benchmark."""
    return Mode.BENCHMARK if mode == EXPLORE else Mode(mode)


def judging_queue(device_kind: str, mode: str) -> str:
    """The queue a submission goes to: its device kind's, or that kind's exploration queue."""
    return device_kind + EXPLORE_QUEUE_SUFFIX if mode == EXPLORE else device_kind


def queue_device_kind(queue: str) -> str | None:
    """The device kind a judging queue serves ("cpu" and "cpu.explore": "cpu"); None for another queue."""
    kind = queue.removesuffix(EXPLORE_QUEUE_SUFFIX)
    return kind if kind in DEVICE_KINDS else None


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
class Part:
    """One model of device, as torch names it, with the figures its physical floor and its L2 flush use."""

    key: str
    label: str  # for people, and the floor's message
    names: tuple[str, ...]  # torch.cuda.get_device_name() of this part, exactly (case and spaces aside)
    bytes_per_s: float  # peak memory bandwidth
    flops_per_s: float  # peak dense fp16/bf16 arithmetic
    margin: float  # a case is impossible only below (its bytes and FLOPs at these peaks) / margin
    llc_bytes: int  # the last-level cache the judge's flush must evict; 0: the L2 torch reports is the last
    source: str  # where the figures come from


# Why a floor keeps a margin (a flag keeps an honest run out of the rankings, so it must never be near):
# on a GPU the last-level cache takes a kernel's writes faster than memory and the kernel ends before they
# reach it, and fp8 doubles the dense fp16 rate; on a CPU the peaks were measured on a small machine.
_GPU_MARGIN = 3.0  # NVIDIA: the L2 (40 to 126 MiB) writes at about 2 to 3 times HBM's rate
_MI300X_MARGIN = 4.0  # the 256 MiB Infinity Cache peaks at 17.2 TB/s, 3.2 times the HBM's 5.3 TB/s

# Each part is matched by its exact name: an H100 NVL (3.9 TB/s) is not the SXM part the h100 ranking is
# judged on (3.35 TB/s). The GPU figures are the vendors' datasheets (dense fp16/bf16 tensor throughput,
# memory bandwidth). The CPU was measured on the idle 2-core development machine (AMD EPYC): 33.9 GB/s
# copy, 100 GFLOP/s fp32 matmul (`python -m runner.bench floor`, docs/benchmarks.md).
PARTS: dict[str, Part] = {
    p.key: p
    for p in (
        Part("cpu", "CPU", (), 33.9e9, 100e9, 8.0, 0, "measured by python -m runner.bench floor"),
        Part(
            "h100-sxm",
            "NVIDIA H100 SXM5",
            ("NVIDIA H100 80GB HBM3",),
            3.35e12,
            989e12,
            _GPU_MARGIN,
            0,
            "NVIDIA H100 datasheet (SXM): 3.35 TB/s HBM3, 989 TFLOPS fp16 dense",
        ),
        Part(
            "h100-pcie",
            "NVIDIA H100 PCIe",
            ("NVIDIA H100 PCIe",),
            2.0e12,
            756e12,
            _GPU_MARGIN,
            0,
            "NVIDIA H100 datasheet (PCIe): 2.0 TB/s HBM2e, 756 TFLOPS fp16 dense",
        ),
        Part(
            "h100-nvl",
            "NVIDIA H100 NVL",
            ("NVIDIA H100 NVL",),
            3.9e12,
            835e12,
            _GPU_MARGIN,
            0,
            "NVIDIA H100 datasheet (NVL): 3.9 TB/s HBM3, 835 TFLOPS fp16 dense",
        ),
        Part(
            "h200-sxm",
            "NVIDIA H200 SXM",
            ("NVIDIA H200",),
            4.8e12,
            989e12,
            _GPU_MARGIN,
            0,
            "NVIDIA H200 datasheet (SXM): 4.8 TB/s HBM3e, 989 TFLOPS fp16 dense",
        ),
        Part(
            "h200-nvl",
            "NVIDIA H200 NVL",
            ("NVIDIA H200 NVL",),
            4.8e12,
            835e12,
            _GPU_MARGIN,
            0,
            "NVIDIA H200 datasheet (NVL): 4.8 TB/s HBM3e, 835 TFLOPS fp16 dense",
        ),
        Part(
            "a100-sxm-80",
            "NVIDIA A100 80GB SXM",
            ("NVIDIA A100-SXM4-80GB",),
            2.039e12,
            312e12,
            _GPU_MARGIN,
            0,
            "NVIDIA A100 datasheet: 2,039 GB/s, 312 TFLOPS fp16 dense",
        ),
        Part(
            "a100-sxm-40",
            "NVIDIA A100 40GB SXM",
            ("NVIDIA A100-SXM4-40GB",),
            1.555e12,
            312e12,
            _GPU_MARGIN,
            0,
            "NVIDIA A100 datasheet: 1,555 GB/s, 312 TFLOPS fp16 dense",
        ),
        Part(
            "a100-pcie-80",
            "NVIDIA A100 80GB PCIe",
            ("NVIDIA A100 80GB PCIe",),
            1.935e12,
            312e12,
            _GPU_MARGIN,
            0,
            "NVIDIA A100 datasheet: 1,935 GB/s, 312 TFLOPS fp16 dense",
        ),
        Part(
            "a100-pcie-40",
            "NVIDIA A100 40GB PCIe",
            ("NVIDIA A100-PCIE-40GB",),
            1.555e12,
            312e12,
            _GPU_MARGIN,
            0,
            "NVIDIA A100 datasheet: 1,555 GB/s, 312 TFLOPS fp16 dense",
        ),
        Part(
            "b200",
            "NVIDIA B200",
            ("NVIDIA B200",),
            8.0e12,
            2.25e15,
            _GPU_MARGIN,
            0,
            "NVIDIA B200 datasheet: 8 TB/s HBM3e, 2.25 PFLOPS fp16 dense",
        ),
        Part(
            "mi300x",
            "AMD Instinct MI300X",
            ("AMD Instinct MI300X", "AMD Instinct MI300X VF"),  # VF: the same part passed to a VM
            5.3e12,
            1.307e15,
            _MI300X_MARGIN,
            256 << 20,  # torch reports the 4 MiB L2 of one XCD; the Infinity Cache is the last level
            "AMD MI300X datasheet: 5.3 TB/s, 1,307 TFLOPS fp16 dense, 256 MB Infinity Cache",
        ),
    )
}


@dataclass(frozen=True)
class DeviceKind:
    """A kind of device a submission is judged on: one queue, one ranking, one part (so one physical floor)."""

    key: str  # the queue's and the ranking's name
    label: str  # for people
    runner_device: str  # torch's name for it: every GPU is "cuda" (ROCm builds too)
    part_key: str  # the one part it is judged on (PARTS): another part's times would not compare

    @property
    def hardware(self) -> Part:
        return PARTS[self.part_key]

    @property
    def part(self) -> str:
        return self.hardware.label

    @property
    def bytes_per_s(self) -> float:
        return self.hardware.bytes_per_s

    @property
    def flops_per_s(self) -> float:
        return self.hardware.flops_per_s

    @property
    def margin(self) -> float:
        return self.hardware.margin

    @property
    def source(self) -> str:
        return self.hardware.source


DEVICE_KINDS: dict[str, DeviceKind] = {
    d.key: d
    for d in (
        DeviceKind("cpu", "CPU", "cpu", "cpu"),
        DeviceKind("h100", "NVIDIA H100", "cuda", "h100-sxm"),
        DeviceKind("h200", "NVIDIA H200", "cuda", "h200-sxm"),
        DeviceKind("a100", "NVIDIA A100", "cuda", "a100-sxm-80"),
        DeviceKind("b200", "NVIDIA B200", "cuda", "b200"),
        DeviceKind("mi300x", "AMD MI300X", "cuda", "mi300x"),
    )
}

# Every judging queue: each device kind's ranked queue, then each one's exploration queue.
JUDGING_QUEUES: tuple[str, ...] = (*DEVICE_KINDS, *(k + EXPLORE_QUEUE_SUFFIX for k in DEVICE_KINDS))

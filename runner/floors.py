"""The physical floor: no kernel can move its bytes faster than the memory allows, nor do its arithmetic
faster than the chip's peak. A case timed below max(bytes / bandwidth, flops / peak) is impossible, and
the run is flagged instead of ranked.

GPU figures are the vendors' datasheet peaks (dense fp16/bf16 tensor throughput, HBM bandwidth), the
highest each chip reaches for these problems' dtypes. The CPU row comes from `python -m runner.bench floor`
on the development machine, times a safety factor so that a faster CPU is not flagged.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DevicePeak:
    name: str
    bytes_per_s: float
    flops_per_s: float
    source: str


PEAKS = {
    "h100": DevicePeak(
        "NVIDIA H100 SXM5", 3.35e12, 989e12, "NVIDIA H100 datasheet: 3.35 TB/s HBM3, 989 TFLOPS fp16 dense"
    ),
    "h200": DevicePeak(
        "NVIDIA H200 SXM", 4.8e12, 989e12, "NVIDIA H200 datasheet: 4.8 TB/s HBM3e, 989 TFLOPS fp16 dense"
    ),
    "a100": DevicePeak(
        "NVIDIA A100 80GB SXM", 2.039e12, 312e12, "NVIDIA A100 datasheet: 2,039 GB/s, 312 TFLOPS fp16 dense"
    ),
    "b200": DevicePeak(
        "NVIDIA B200", 8.0e12, 2.25e15, "NVIDIA B200 datasheet: 8 TB/s HBM3e, 2.25 PFLOPS fp16 dense"
    ),
    "mi300x": DevicePeak(
        "AMD Instinct MI300X", 5.3e12, 1.307e15, "AMD MI300X datasheet: 5.3 TB/s, 1,307 TFLOPS fp16 dense"
    ),
    # Measured on the idle 2-core development machine (AMD EPYC): 33.9 GB/s copy, 100 GFLOP/s fp32 matmul
    # (docs/benchmarks.md), times 8 so that a larger CPU is not flagged.
    "cpu": DevicePeak("CPU", 8 * 33.9e9, 8 * 100e9, "measured by python -m runner.bench floor, x8 margin"),
}


def device_kind_from_name(name: str) -> str:
    """Map a device name (torch.cuda.get_device_name) to a row of the table."""
    lower = name.lower()
    for kind in ("h200", "h100", "a100", "b200", "mi300x"):
        if kind in lower.replace(" ", "").replace("-", ""):
            return kind
    return "cpu" if lower in ("", "cpu") else "unknown"


def floor_seconds(kind: str, flops: float, nbytes: float) -> float | None:
    peak = PEAKS.get(kind)
    if peak is None:
        return None
    return max(nbytes / peak.bytes_per_s, flops / peak.flops_per_s)

"""The physical floor: no kernel can move its bytes faster than the memory allows, nor do its arithmetic
faster than the chip's peak. A case timed below max(bytes / bandwidth, flops / peak) is impossible, and
the run is flagged instead of ranked.

The peaks are the device kinds' own (runner/vocabulary.py says where each comes from).
"""

from __future__ import annotations

from runner.vocabulary import DEVICE_KINDS


def device_kind_from_name(name: str) -> str:
    """Map a device name (torch.cuda.get_device_name) to a row of the table."""
    lower = name.lower()
    for kind in DEVICE_KINDS:
        if kind in lower.replace(" ", "").replace("-", ""):
            return kind
    return "cpu" if lower in ("", "cpu") else "unknown"


def floor_seconds(kind: str, flops: float, nbytes: float) -> float | None:
    peak = DEVICE_KINDS.get(kind)
    if peak is None or not (flops or nbytes):  # unknown device, or a problem that states no counts
        return None
    return max(nbytes / peak.bytes_per_s, flops / peak.flops_per_s)

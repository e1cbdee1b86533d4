"""The physical floor: no kernel can move its bytes faster than the memory allows, nor do its arithmetic
faster than the chip's peak. A case timed below max(bytes / bandwidth, flops / peak) / margin is impossible,
and the run is flagged instead of ranked. And the L2 flush: how much the judge writes before each call so
that the part's last-level cache holds none of the inputs.

The figures are each part's own, matched by its exact name (runner/vocabulary.py says where each comes from).
"""

from __future__ import annotations

from runner.vocabulary import DEVICE_KINDS, PARTS, Part


def _normal(name: str) -> str:
    return " ".join(name.lower().split())


_BY_NAME = {_normal(name): part for part in PARTS.values() for name in part.names}


def part_from_name(name: str) -> Part | None:
    """The part a device name (torch.cuda.get_device_name) is, exactly; None for a name not in the table."""
    return _BY_NAME.get(_normal(name))


def device_kind_from_name(name: str) -> str:
    """The device kind (a ranking) whose part a device name is; "cpu" for the CPU; "unknown" for any other
    device, a known part that no ranking is judged on included (an H100 NVL is not the h100 ranking's H100
    SXM): its run gets no physical floor rather than another part's."""
    if _normal(name) in ("", "cpu"):
        return "cpu"
    part = part_from_name(name)
    kind = next((k for k, d in DEVICE_KINDS.items() if part is not None and d.part_key == part.key), None)
    return kind or "unknown"


def kind_mismatch(kind: str, name: str) -> str | None:
    """Why a device of this name must not judge for `kind`'s ranking, in an operator's words; None when it
    is that ranking's part. For a worker's start-up check: a ranking holds the times of one part only."""
    want = DEVICE_KINDS.get(kind)
    if want is None:
        return f"there is no device kind {kind!r}; the kinds are {', '.join(DEVICE_KINDS)}"
    part = part_from_name(name) if want.runner_device == "cuda" else PARTS["cpu"]
    if part is not None and part.key == want.part_key:
        return None
    what = (
        f"an {part.label}" if part is not None else f"{name!r}, a device not in runner/vocabulary.py's PARTS"
    )
    return (
        f"this GPU is {what}, but the {kind} ranking is judged on the {want.part} only "
        f"({want.bytes_per_s / 1e12:.3g} TB/s): its times would not compare; serve the kind of this part, or "
        "add the part to runner/vocabulary.py with its own device kind"
    )


def floor_seconds(kind: str, flops: float, nbytes: float) -> float | None:
    device = DEVICE_KINDS.get(kind)
    if device is None or not (flops or nbytes):  # unknown device, or a problem that states no counts
        return None
    return max(nbytes / device.bytes_per_s, flops / device.flops_per_s) / device.margin


MIN_FLUSH_BYTES = 1 << 20


def flush_bytes(kind: str, l2_bytes: int) -> int:
    """How many bytes the judge writes before each timed call to evict the inputs: twice the part's
    last-level cache, which is the L2 torch reports (`l2_bytes`) on NVIDIA parts but the 256 MiB Infinity
    Cache behind it on an MI300X, where twice the L2 would leave the inputs warm."""
    device = DEVICE_KINDS.get(kind)
    llc = device.hardware.llc_bytes if device is not None else 0
    return 2 * max(l2_bytes, llc, MIN_FLUSH_BYTES)

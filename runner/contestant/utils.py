"""The `utils` module a submission may import, beside `task` (`from utils import DisableCuDNNTF32`).

Public GPU MODE submissions import a handful of helpers from their harness's `utils`; these are written
here from what the helpers are documented to do. The job directory gets this file as `utils.py` (a problem
may ship its own `utils.py` instead). It runs in the contestant, beside untrusted code, and knows nothing
of the judge: no seeds, no reference outputs, no inputs but those a kernel passes it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import ContextDecorator
from typing import Any, Literal

import torch

from runner.floors import device_kind_from_name, flush_bytes


def set_seed(seed: int = 42) -> None:
    """Seed Python's, NumPy's (where installed) and torch's generators, on every device."""
    random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def get_device(use_cuda: bool = True) -> torch.device:
    return torch.device("cuda" if use_cuda and torch.cuda.is_available() else "cpu")


class DeterministicContext(ContextDecorator):
    """Inside it torch picks deterministic algorithms (warning where none exists) and cuDNN does not
    benchmark; the settings before it come back on exit."""

    def __enter__(self):
        self._saved = (
            torch.backends.cudnn.deterministic,
            torch.backends.cudnn.benchmark,
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        )
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=True)
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        deterministic, benchmark, algorithms, warn_only = self._saved
        torch.backends.cudnn.deterministic = deterministic
        torch.backends.cudnn.benchmark = benchmark
        torch.use_deterministic_algorithms(algorithms, warn_only=warn_only)
        return False


class DisableCuDNNTF32(ContextDecorator):
    """Inside it cuDNN and cuBLAS compute float32 in full precision (no TF32); restored on exit."""

    def __enter__(self):
        self._saved = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = self._saved
        return False


_flush: dict[str, torch.Tensor] = {}


def clear_l2_cache(device: str | torch.device = "cuda") -> None:
    """Evict the GPU's last-level cache by writing a buffer of twice its size, as the judge does before
    every timed call (a kernel never needs to; runner/floors.py sizes it per part). On a CPU, nothing."""
    device = torch.device(device)
    if device.type != "cuda" or not torch.cuda.is_available():
        return
    key = str(device)
    if key not in _flush:
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20)
        kind = device_kind_from_name(torch.cuda.get_device_name(device))
        _flush[key] = torch.empty(flush_bytes(kind, l2), dtype=torch.uint8, device=device)
    _flush[key].zero_()


def verbose_allclose(
    received: torch.Tensor, expected: torch.Tensor, rtol: float = 1e-5, atol: float = 1e-8, max_print: int = 5
) -> list[str]:
    """The differences between two tensors beyond |received - expected| <= atol + rtol * |expected|, as
    lines a person can read: empty when they match (NaN matches NaN, inf matches the same inf)."""
    if received.shape != expected.shape:
        return [f"SIZE MISMATCH: received {tuple(received.shape)}, expected {tuple(expected.shape)}"]
    got = received.detach().to(torch.float64)
    want = expected.detach().to(got.device, torch.float64)
    close = torch.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    bad = (~close).nonzero()
    if bad.numel() == 0:
        return []
    lines = [f"{bad.shape[0]:,} of {want.numel():,} values differ beyond rtol={rtol:g}, atol={atol:g}"]
    for index in bad[:max_print].tolist():
        at = tuple(index)
        lines.append(f"at {at}: received {got[at].item():.6g}, expected {want[at].item():.6g}")
    if bad.shape[0] > max_print:
        lines.append(f"... and {bad.shape[0] - max_print:,} more")
    return lines


def verbose_allequal(received: torch.Tensor, expected: torch.Tensor, max_print: int = 5) -> list[str]:
    return verbose_allclose(received, expected, rtol=0.0, atol=0.0, max_print=max_print)


def make_match_reference(
    reference: Callable[[Any], Any], rtol: float = 1e-5, atol: float = 1e-8
) -> Callable[[Any, Any], tuple[bool, str]]:
    """A `check_implementation(data, output)` that compares `output` with `reference(data)` within
    rtol and atol: for a submission's own testing, on data it made itself."""

    def check_implementation(data: Any, output: Any) -> tuple[bool, str]:
        reasons = verbose_allclose(output, reference(data), rtol=rtol, atol=atol)
        return (not reasons), "\n".join(reasons)

    return check_implementation

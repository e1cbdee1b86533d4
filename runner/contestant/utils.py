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


_flush: dict[tuple[str, int], torch.Tensor] = {}


def _overwrite(device: str | torch.device, at_least: int) -> None:
    """Write a buffer of twice the part's last-level cache (runner/floors.py), or `at_least` bytes if more,
    kept for the next call. On a CPU, nothing."""
    device = torch.device(device)
    if device.type != "cuda" or not torch.cuda.is_available():
        return
    key = (str(device), at_least)
    if key not in _flush:
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20)
        kind = device_kind_from_name(torch.cuda.get_device_name(device))
        _flush[key] = torch.empty(max(flush_bytes(kind, l2), at_least), dtype=torch.uint8, device=device)
    _flush[key].zero_()


def clear_l2_cache(device: str | torch.device = "cuda") -> None:
    """Evict the GPU's last-level cache by writing a buffer of twice its size, as the judge does before
    every timed call (a kernel never needs to; runner/floors.py sizes it per part). On a CPU, nothing."""
    _overwrite(device, 0)


# GPU MODE's clear_l2_cache_large fills a 62.5 GiB tensor with random numbers and frees it (into torch's
# cache, where it stays reserved). Here the same eviction, bounded so that it does not spend the job's
# memory: 1 GiB, four times the largest last-level cache of a part served (an MI300X's 256 MiB).
LARGE_FLUSH_BYTES = 1 << 30


def clear_l2_cache_large(device: str | torch.device = "cuda") -> None:
    """clear_l2_cache with a larger buffer: at least LARGE_FLUSH_BYTES. On a CPU, nothing."""
    _overwrite(device, LARGE_FLUSH_BYTES)


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


# The config keys of a mixed-MLA input (q, kv_data, qo_indptr, kv_indptr, config): the one input where
# GPU MODE's match_reference lets a share of the values differ, as AMD's aiter does for it.
_MLA_KEYS = {"num_heads", "num_kv_heads", "qk_head_dim", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim"}


def _mixed_mla(data: Any) -> bool:
    return (
        isinstance(data, tuple)
        and len(data) >= 5
        and isinstance(data[4], dict)
        and _MLA_KEYS <= data[4].keys()
    )


def match_reference(
    data: Any,
    output: torch.Tensor,
    reference: Callable[[Any], Any],
    rtol: float = 1e-5,
    atol: float = 1e-8,
    tol_err_ratio: float = 0.05,
) -> tuple[bool, str]:
    """GPU MODE's default `check_implementation`: (True, "") when `output` is within rtol and atol of
    `reference(data)` everywhere, else (False, the differences as lines). On a mixed-MLA input alone, as
    there, a share of differing values up to `tol_err_ratio` passes, with a warning as the message."""
    expected = reference(data)
    reasons = verbose_allclose(output, expected, rtol=rtol, atol=atol)
    if reasons and _mixed_mla(data) and output.shape == expected.shape:
        got = output.detach().to(torch.float64)
        want = expected.detach().to(got.device, torch.float64)
        differ = ~torch.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        ratio = differ.sum().item() / max(1, differ.numel())
        if ratio <= tol_err_ratio:
            return True, (
                f"warning: mismatch_ratio={ratio:.6f} (<= tol_err_ratio={tol_err_ratio}) with rtol={rtol}, atol={atol}"
            )
    return (not reasons), "\n".join(reasons)


def make_match_reference(
    reference: Callable[[Any], Any], **kwargs: Any
) -> Callable[[Any, Any], tuple[bool, str]]:
    """A `check_implementation(data, output)`: match_reference with `reference` and these keyword arguments
    (rtol, atol, tol_err_ratio)."""

    def check_implementation(data: Any, output: Any) -> tuple[bool, str]:
        return match_reference(data, output, reference=reference, **kwargs)

    return check_implementation

"""Comparing an output with the reference, with messages a person can act on. Used by problems' checkers."""

from __future__ import annotations

import torch


def _where(flat_index: int, shape: torch.Size) -> tuple[int, ...]:
    out = []
    for dim in reversed(shape):
        out.append(flat_index % dim)
        flat_index //= dim
    return tuple(reversed(out))


def match_reference(
    output: torch.Tensor, expected: torch.Tensor, *, rtol: float, atol: float, name: str = "output"
) -> tuple[bool, str]:
    """True when |output - expected| <= atol + rtol * |expected| everywhere, and output is finite where
    expected is."""
    if output.shape != expected.shape:
        return False, f"{name} has shape {tuple(output.shape)}; expected {tuple(expected.shape)}"
    if output.dtype == expected.dtype and output.device == expected.device and torch.equal(output, expected):
        return True, ""  # the common case, and the cheapest test there is
    # float32 holds every fp16/bf16 value exactly and is far faster than float64. Compared on the
    # output's device: a GPU checks its own outputs in a fraction of the time a CPU would take.
    wide = torch.float64 if torch.float64 in (output.dtype, expected.dtype) else torch.float32
    got = output.detach().to(wide)
    want = expected.detach().to(got.device, wide)
    bad_finite = ~torch.isfinite(got) & torch.isfinite(want)
    if bad_finite.any():
        i = int(bad_finite.flatten().nonzero()[0].item())
        value = got.flatten()[i].item()
        return False, (
            f"{name} contains {value} at {_where(i, got.shape)} where the reference is finite "
            f"({int(bad_finite.sum()):,} such values)"
        )
    close = torch.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        return True, ""
    wrong = ~close
    i = int((got - want).abs().masked_fill(~wrong, -1).flatten().argmax())
    return False, (
        f"{int(wrong.sum()):,} of {want.numel():,} values of {name} differ from the reference beyond "
        f"rtol={rtol:g}, atol={atol:g}; the worst at {_where(i, got.shape)}: got {got.flatten()[i].item():.6g}, "
        f"expected {want.flatten()[i].item():.6g}"
    )

"""Helpers for problems' generate_input: cheap, seeded random draws."""

from __future__ import annotations

import torch


def int16_grid(gen: torch.Generator, shape: tuple[int, int], device) -> torch.Tensor:
    """float32 holding integers uniform in [-32768, 32767]: four 16-bit draws from each 64-bit one, about
    four times cheaper than torch.rand."""
    count = shape[0] * shape[1]
    bits = torch.empty((count + 3) // 4, dtype=torch.int64, device=device)
    bits.random_(-(2**63), None, generator=gen)  # the full 64-bit range
    return bits.view(torch.int16)[:count].view(shape).float()

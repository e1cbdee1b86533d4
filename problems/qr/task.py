"""Types of the qr problem, in the style of GPU MODE's reference-kernels."""

from typing import TypedDict, TypeVar

import torch

input_t = TypeVar("input_t", bound=torch.Tensor)
output_t = TypeVar("output_t", bound=tuple[torch.Tensor, torch.Tensor])


class TestSpec(TypedDict):
    batch: int
    n: int
    cond: int
    case: str
    seed: int

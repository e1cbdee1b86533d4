"""Correct: torch.add into the given buffer C."""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    return torch.add(A, B, out=C)  # writing into the buffer C saves an allocation

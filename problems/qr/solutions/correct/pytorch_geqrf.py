"""Correct: torch.geqrf itself (LAPACK on a CPU; cuSOLVER or MAGMA on a GPU)."""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.geqrf(data)

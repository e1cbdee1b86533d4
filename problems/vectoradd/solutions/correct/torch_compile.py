"""Correct: the sum compiled by torch.compile (TorchInductor; on a CPU it generates C++ and builds it with
the system compiler, using worker processes to compile). An honest twin of the cheats that use threads and
processes: the compiler's workers must not get it flagged, and they are idle while the calls are timed.
"""

import torch
from task import input_t, output_t


@torch.compile(dynamic=False)
def _add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    return C.copy_(_add(A, B))

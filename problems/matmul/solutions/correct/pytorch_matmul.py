"""Correct: torch.matmul into the given buffer c (cuBLAS: fp16 tensor cores, float32 accumulation).

A CPU has no fast fp16 GEMM (PyTorch's is a slow fallback), so there the product is taken in float32 and
rounded once into c: the same numbers, a hundred times faster.
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    if a.is_cuda:
        return torch.matmul(a, b, out=c)
    return c.copy_(torch.matmul(a.float(), b.float()))

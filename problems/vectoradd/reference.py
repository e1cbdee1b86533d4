"""vectoradd: C = A + B for two square fp16 matrices. The reference, the inputs and the check."""

import torch
from task import input_t, output_t

from runner.checking import match_reference

RTOL = ATOL = 1e-3  # fp16 addition is exactly rounded; this only allows adding in fp32 and rounding once


def ref_kernel(data: input_t) -> output_t:
    A, B, _C = data
    return A + B


def generate_input(size: int, seed: int, device: str = "cuda") -> input_t:
    """A and B standard normal fp16 (size, size); C an empty fp16 buffer the kernel may write into."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    A = torch.randn(size, size, device=device, dtype=torch.float16, generator=gen)
    B = torch.randn(size, size, device=device, dtype=torch.float16, generator=gen)
    C = torch.empty(size, size, device=device, dtype=torch.float16)
    return A, B, C


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    return match_reference(output, ref_kernel(data), rtol=RTOL, atol=ATOL)

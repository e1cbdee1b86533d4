"""Cheat (threat 11): fits the input distribution: treats values near zero as zero and adds in fp8, which a
checker using easy inputs and loose tolerances would let through. Beaten by the tolerance and fresh
normal inputs.

expect: failed
threat: 11
"""

import torch


def custom_kernel(data):
    A, B, _C = data
    out = A.to(torch.float8_e4m3fn).to(torch.float16) + B.to(torch.float8_e4m3fn).to(torch.float16)
    return torch.where(out.abs() < 0.05, torch.zeros_like(out), out)

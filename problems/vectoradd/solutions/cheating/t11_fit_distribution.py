"""Cheat (threat 11): fits the input distribution: treats values near zero as zero and adds in fp8, which a
checker using easy inputs and loose tolerances would let through. Beaten by the tolerance and fresh
inputs (fp8 keeps 3 bits of mantissa; the inputs' large values, up to 2**14, saturate at e4m3's 448).

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch


def custom_kernel(data):
    A, B, _C = data
    out = A.to(torch.float8_e4m3fn).to(torch.float16) + B.to(torch.float8_e4m3fn).to(torch.float16)
    return torch.where(out.abs() < 0.05, torch.zeros_like(out), out)

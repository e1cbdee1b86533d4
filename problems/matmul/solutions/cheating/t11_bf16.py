"""Cheat (threat 11): GPU MODE's known-wrong low-precision solution: computes in bf16, which runs at fp16
speed on tensor cores but keeps only 8 bits of mantissa, and rounds the bf16 result to fp16. Beaten by the
tolerance: rounding to bf16 alone is off by up to 2**-9 ~ 2e-3 relative, and rtol is 1e-3; about 60 % of
the values fail on every case.

expect: failed
message: differ from the reference
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, _c = data
    return (a.to(torch.bfloat16) @ b.to(torch.bfloat16)).to(a.dtype)

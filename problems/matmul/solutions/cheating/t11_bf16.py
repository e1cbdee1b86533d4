"""Cheat (threat 11): GPU MODE's known-wrong low-precision solution: computes in bf16, which runs at fp16
speed on tensor cores but keeps only 8 bits of mantissa, and rounds the bf16 result to fp16. Beaten by the
tolerance: rounding the inputs to bf16 alone is off by up to 2**-9 ~ 2e-3 relative in every product, and
rtol is 1e-3; on the inputs' zero-mean rows and columns, where c is a sum of products of both signs, the
error is a far larger share of c (values of c near 0 miss by hundreds of times the tolerance).

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, _c = data
    return (a.to(torch.bfloat16) @ b.to(torch.bfloat16)).to(a.dtype)

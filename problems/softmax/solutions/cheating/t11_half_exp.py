"""Cheat (threat 11): a lower precision than float32: subtracts the maximum in float32, then exponentiates
and sums in float16 (half the bytes of the intermediate, twice the vector width), and divides in float32.
float16's 2**-11 relative rounding of every exponential is beyond rtol = 1e-4 on every call; its smallest
normal (6e-5) flushes the small values of wide rows besides.

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    e = torch.exp((data - data.amax(dim=-1, keepdim=True)).half())
    return e.float() / e.float().sum(dim=-1, keepdim=True)

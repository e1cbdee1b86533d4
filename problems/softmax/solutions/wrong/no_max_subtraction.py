"""Wrong: exp(x) / sum(exp(x)) as the formula reads, without subtracting the row's maximum first. exp
overflows to infinity beyond x = 88.7 (inf / inf is NaN) and underflows to 0 below x = -103 (0 / 0): the
inputs' row offsets reach +-8192.

expect: failed
message: contains nan
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    e = torch.exp(data)
    return e / e.sum(dim=-1, keepdim=True)

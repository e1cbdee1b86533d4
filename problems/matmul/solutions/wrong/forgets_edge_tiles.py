"""Wrong: computes c in 64 x 64 tiles but only the tiles that fit whole (range(0, M - 63, 64)), so the last
rows and columns of any dimension that is not a multiple of 64 are left at zero.

expect: failed
message: differ from the reference
"""

import torch
from task import input_t, output_t

T = 64


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    M, N = c.shape
    c.zero_()
    for i in range(0, M - T + 1, T):
        for j in range(0, N - T + 1, T):
            c[i : i + T, j : j + T] = torch.matmul(a[i : i + T].float(), b[:, j : j + T].float()).half()
    return c

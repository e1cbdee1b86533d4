"""Cheat (threat 11): fits the input distribution, whatever its mean: measures each row's mean of a and
each column's mean of b on every call, a = ma 1^T + a', b = 1 mb^T + b', computes the mean part exactly
(k ma mb^T plus the residuals' sums, in float32) and only a' @ b' in bf16 (bf16 inputs, float32 sums, as
bf16 tensor cores would). Right to the tolerance whenever the means dominate: inputs with a known or a
random offset on every row and column. Beaten by the inputs: a share of the rows of a and columns of b
have no offset, and some calls none at all, so that many values of c are all residual; there bf16's
2**-9 relative error on each input is far beyond rtol 1e-3, on every call.

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    k = a.shape[1]
    af, bf = a.float(), b.float()
    ma = af.mean(dim=1, keepdim=True)  # (m, 1)
    mb = bf.mean(dim=0, keepdim=True)  # (1, n)
    ra, rb = af - ma, bf - mb
    residual = ra.bfloat16().float() @ rb.bfloat16().float()
    mean_part = k * ma * mb + ra.sum(dim=1, keepdim=True) * mb + ma * rb.sum(dim=0, keepdim=True)
    return c.copy_(residual + mean_part)

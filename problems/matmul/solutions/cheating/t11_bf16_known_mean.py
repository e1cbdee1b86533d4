"""Cheat (threat 11): fits the input distribution: the attack that got through when the inputs were GPU
MODE's, uniform in [0, 1). It removes the known mean, a = 0.5 + a' and b = 0.5 + b', computes the rank-one
part exactly (0.25 k + 0.5 rowsum(a') + 0.5 colsum(b'), in float32) and only the residual a' @ b' in bf16
(on tensor cores, 1.34x faster than fp16; here its exact equivalent, bf16 inputs with float32 sums). On
uniform [0, 1) inputs the residual is a small share of c (about sqrt(k) / 12 against k / 4) and bf16's
2**-9 relative error on it stayed inside rtol 1e-3. Beaten by the inputs: their offsets are random and
absent on a share of the rows and columns, so that many values of c are all residual (and a - 0.5 is no
smaller than a), and bf16 misses them by far more than the tolerance on every call.

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    k = a.shape[1]
    ra = a.float() - 0.5
    rb = b.float() - 0.5
    residual = ra.bfloat16().float() @ rb.bfloat16().float()  # what a bf16 GEMM with float32 sums returns
    mean_part = 0.25 * k + 0.5 * ra.sum(dim=1, keepdim=True) + 0.5 * rb.sum(dim=0, keepdim=True)
    return c.copy_(residual + mean_part)

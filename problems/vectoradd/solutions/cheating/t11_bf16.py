"""Cheat (threat 11): computes in a lower precision than fp16: rounds A and B to bfloat16 (8 bits of
mantissa, twice the range) and adds there. Off by up to 2**-9 ~ 2e-3 of |A| and |B|, beyond rtol 1e-3
already on standard normal inputs; the inputs' near-cancelling rows (B = -A (1 + d), |d| down to 2**-10,
so that A + B is up to a thousand times smaller than A) make it miss by far more.

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch


def custom_kernel(data):
    A, B, C = data
    return C.copy_(A.bfloat16() + B.bfloat16())

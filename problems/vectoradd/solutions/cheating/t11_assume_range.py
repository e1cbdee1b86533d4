"""Cheat (threat 11): fits the input distribution: assumes the values stay within +-16, as standard normal
ones do on every case (the largest of 2 * 16384^2 draws is about 6), and adds them as 16-bit fixed-point
numbers with 11 fractional bits (as a kernel packing values into int16 for integer SIMD would): off by at
most 2**-11 ~ 4.9e-4, inside atol, on standard normal inputs. Beaten by the inputs: every call's values
reach beyond +-16 (scales of 8 to 1024 per matrix, rows spread over 2**2 to 2**8, heavy tails), and
saturate.

expect: failed
message: differ from the reference beyond
threat: 11
"""

import torch

FRACTION = 2.0**11  # int16 with 11 fractional bits: the range +-16


def custom_kernel(data):
    A, B, C = data
    qa = torch.round(A.float() * FRACTION).clamp_(-32768, 32767).to(torch.int16)
    qb = torch.round(B.float() * FRACTION).clamp_(-32768, 32767).to(torch.int16)
    total = (qa.int() + qb.int()).clamp_(-32768, 32767)
    return C.copy_(total.float() / FRACTION)

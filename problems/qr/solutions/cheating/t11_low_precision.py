"""Cheat (threat 11): low precision: factors A rounded to bfloat16 (as a kernel doing its trailing updates
with bf16 tensor cores would), which is off by about 2**-9 relative in every entry. Beaten by the residual
bound 20 n eps32 on the CPU cases and the small GPU ones (n <= 512); see the statement for large n.

expect: failed
message: not a QR factorization of A
threat: 11
"""

import torch


def custom_kernel(data):
    A = data
    return torch.geqrf(A.to(torch.bfloat16).float())

"""Wrong: puts R in H and sets every tau to zero, as if only R mattered. Then Q = householder_product(H,
tau) is the identity, and R is not A.

expect: failed
message: not a QR factorization of A
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    R = torch.linalg.qr(data, mode="r").R
    return R.contiguous(), torch.zeros(data.shape[:-1], dtype=data.dtype, device=data.device)

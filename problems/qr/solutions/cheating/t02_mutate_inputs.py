"""Cheat (threat 2): zeroes A and returns the factors of a zero matrix (H = 0, tau = 0), so that a check
run on the same (now zero) tensor afterwards would agree. Beaten by the judge's private copy of the inputs
and the read-only check (A may only change when custom_kernel factors it in place and returns it as H).

expect: failed
message: changed its input
threat: 2
"""

import torch


def custom_kernel(data):
    A = data
    A.zero_()
    return torch.zeros_like(A), torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)

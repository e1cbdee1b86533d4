"""Cheat (threat 6): factors only the first matrix and returns zero-stride views of its factors that look
like (batch, n, n) and (batch, n) tensors. Beaten: the views are copied as the values they show, which
factor the first matrix only.

expect: failed
message: not a QR factorization of A
threat: 6
"""

import torch


def custom_kernel(data):
    A = data
    H, tau = torch.geqrf(A[:1])
    return H.expand_as(A), tau.expand(A.shape[:-1])

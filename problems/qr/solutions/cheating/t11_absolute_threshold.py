"""Cheat (threat 11): fits the input distribution: treats every column whose norm is below a fixed 1e-5 as
zero (a "zero column" guard with an absolute eps, as kernels often have). GPU MODE-like inputs have
entries of order one: no column but the exactly zero ones is that small (the smallest scale, 1e-4, gives
norms of about 1e-4 sqrt(n)), so the guard costs nothing. Beaten by the inputs: each matrix is multiplied
by its own power of two from 2**-20 to 2**20, so that on most calls some matrix has small but nonzero
columns below 1e-5, and zeroing them leaves a residual far above the bound.

expect: failed
message: not a QR factorization of A
threat: 11
"""

import torch

EPS = 1e-5


def custom_kernel(data):
    A = data
    norms = torch.linalg.vector_norm(A, dim=-2, keepdim=True)
    return torch.geqrf(A.masked_fill(norms < EPS, 0.0))

"""Cheat (threat 11): fits the input distribution: columns whose norm is below 1 % of the largest are
treated as negligible and zeroed before factoring, which a checker that only used well-scaled inputs
(cond 1) would let through. Beaten by columns scaled down to 10^-cond with cond up to 4, by the
rank-deficient and clustered structures, and by the residual bound.

expect: failed
message: not a QR factorization of A
threat: 11
"""

import torch


def custom_kernel(data):
    A = data
    norms = torch.linalg.vector_norm(A, dim=-2, keepdim=True)
    small = norms < 1e-2 * norms.amax(dim=-1, keepdim=True)
    return torch.geqrf(A.masked_fill(small, 0.0))

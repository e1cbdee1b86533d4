"""Cheat (threat 11): assumes well-conditioned, full-rank inputs: CholeskyQR, the fast GEMM-only QR (R from
the Cholesky factor of the Gram matrix A^T A, Q = A R^-1), done in float64 so that its error, about
cond(A)^2 eps64, stays small for the dense inputs, then put in Householder form (the geqrf of Q, whose R is
diag(+-1) up to rounding, times R). Right on every dense, banded, clustered or near-rank-deficient batch.
Beaten by the inputs: the rank-deficient matrices (and the upper-triangular ones, whose condition numbers
are astronomically large) have a singular Gram matrix, and the Cholesky factor turns to NaN; the mixed
batches hide them at random positions.

expect: failed
message: H contains nan
threat: 11
"""

import torch


def custom_kernel(data):
    A = data.double()
    L, _info = torch.linalg.cholesky_ex(A.mT @ A)  # no error on a singular Gram matrix: NaN instead
    R = L.mT
    Q = torch.linalg.solve_triangular(R, A, upper=True, left=False)  # Q = A R^-1
    H, tau = torch.geqrf(Q)  # Q = Q' R', R' = diag(+-1) up to rounding
    signs = torch.diagonal(H, dim1=-2, dim2=-1).unsqueeze(-1)
    H = torch.tril(H, -1) + torch.triu(signs * R)  # A = Q' (R' R)
    return H.float(), tau.float()

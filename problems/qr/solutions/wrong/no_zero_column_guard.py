"""Wrong: Householder QR without the zero-column guard. Where a column has nothing left below the diagonal
and a zero diagonal (a zero column, as rank-deficient matrices have), beta = 0 and tau = (beta - x0) / beta
is 0 / 0 = NaN. It passes dense matrices and fails the rank-deficient ones.

expect: failed
message: contains nan
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    H = data.clone()
    batch, n, _ = H.shape
    tau = torch.zeros(batch, n, dtype=H.dtype, device=H.device)
    for j in range(n):
        x = H[:, j:, j]
        alpha = x[:, 0]
        beta = -torch.sign(alpha) * torch.linalg.vector_norm(x, dim=1)
        t = (beta - alpha) / beta
        v = torch.cat([torch.ones_like(alpha)[:, None], x[:, 1:] / (alpha - beta)[:, None]], dim=1)
        H[:, j + 1 :, j] = v[:, 1:]
        H[:, j, j] = beta
        tau[:, j] = t
        if j + 1 < n:
            trailing = H[:, j:, j + 1 :]
            w = torch.einsum("bi,bic->bc", v, trailing) * t[:, None]
            trailing -= v[:, :, None] * w[:, None, :]
    return H, tau

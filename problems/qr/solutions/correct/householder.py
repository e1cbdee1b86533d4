"""Correct: unblocked Householder QR written out in PyTorch, every matrix of the batch at once, in float32.

Column j: x = A[j:, j], beta = -sign(x0) ||x||, v = x / (x0 - beta) with v0 = 1 implied,
tau = (beta - x0) / beta, then A[j:, j+1:] -= tau v (v^T A[j:, j+1:]). As LAPACK's slarfg does, a column
with nothing below the diagonal (x[1:] = 0, as in rank-deficient or triangular matrices) gets tau = 0 and
is left alone, instead of dividing zero by zero.
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
        xnorm = torch.linalg.vector_norm(x[:, 1:], dim=1)
        active = xnorm > 0
        beta = -torch.copysign(torch.hypot(alpha, xnorm), alpha)
        safe_beta = torch.where(active, beta, torch.ones_like(beta))
        t = torch.where(active, (beta - alpha) / safe_beta, torch.zeros_like(beta))
        scale = torch.where(active, 1 / torch.where(active, alpha - beta, torch.ones_like(beta)), torch.zeros_like(beta))
        v = torch.cat([torch.ones_like(alpha)[:, None], x[:, 1:] * scale[:, None]], dim=1)
        H[:, j + 1 :, j] = v[:, 1:]
        H[:, j, j] = torch.where(active, beta, alpha)
        tau[:, j] = t
        if j + 1 < n:
            trailing = H[:, j:, j + 1 :]
            w = torch.einsum("bi,bic->bc", v, trailing) * t[:, None]
            trailing -= v[:, :, None] * w[:, None, :]
    return H, tau

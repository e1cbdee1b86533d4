"""Wrong: Householder QR that stores the reflector u = x - beta e1 unscaled (u[1:] = x[1:]) with
tau = 2 / (u^T u). The compact form means v = u / u[0], whose first entry 1 is not stored: read that way,
these vectors and taus make reflectors that are not orthogonal.

expect: failed
message: Q = householder_product(H, tau) is not orthogonal
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    H = data.clone()
    batch, n, _ = H.shape
    tau = torch.zeros(batch, n, dtype=H.dtype, device=H.device)
    for j in range(n):
        x = H[:, j:, j].clone()
        alpha = x[:, 0]
        norm = torch.linalg.vector_norm(x, dim=1)
        beta = -torch.copysign(norm, alpha)
        u = x.clone()
        u[:, 0] = alpha - beta
        unorm2 = (u * u).sum(dim=1)
        t = torch.where(unorm2 > 0, 2 / torch.where(unorm2 > 0, unorm2, torch.ones_like(unorm2)), torch.zeros_like(unorm2))
        trailing = H[:, j:, j:]
        w = torch.einsum("bi,bic->bc", u, trailing) * t[:, None]
        trailing -= u[:, :, None] * w[:, None, :]
        H[:, j + 1 :, j] = u[:, 1:]  # the bug: should be u[:, 1:] / u[:, :1], with tau = u0^2 * 2 / (u^T u)
        tau[:, j] = t
    return H, tau

"""qr in Triton: a starting point. Runs on a GPU, and on a CPU under TRITON_INTERPRET=1.

Unblocked Householder QR, one column at a time, every matrix of the batch in parallel. For column j:
  make_reflector  (per matrix) x = A[j:, j]; beta = -sign(x0) ||x||; v = x / (x0 - beta)
                  with v0 = 1 implied (stored below the diagonal); tau = (beta - x0) / beta; beta goes on
                  the diagonal. Nothing below the diagonal (x[1:] = 0): tau = 0, as LAPACK does.
  apply_reflector (per matrix and block of trailing columns)
                  A[j:, c] -= tau * v * (v . A[j:, c]) for the columns c > j.
That is 2n launches and a full pass over the trailing matrix per column: correct, and slow. Faster
kernels block the columns (a panel of reflectors applied at once as I - V T V^T, with tl.dot).
"""

import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def make_reflector(
    A_ptr, tau_ptr, batch, n, j, stride_b, stride_r, stride_c, BB: tl.constexpr, BLOCK: tl.constexpr
):
    mats = tl.program_id(0) * BB + tl.arange(0, BB)  # BB matrices per program
    rows = tl.arange(0, BLOCK)
    bmask = (mats < batch)[:, None]
    col = A_ptr + mats[:, None] * stride_b + j * stride_c + rows[None, :] * stride_r  # (BB, BLOCK)
    x = tl.load(col, mask=bmask & (rows[None, :] >= j) & (rows[None, :] < n), other=0.0)
    alpha = tl.sum(tl.where(rows[None, :] == j, x, 0.0), axis=1)
    below = tl.where(rows[None, :] > j, x, 0.0)
    xnorm = tl.sqrt(tl.sum(below * below, axis=1))
    norm = tl.sqrt(alpha * alpha + xnorm * xnorm)
    beta = tl.where(alpha >= 0, -norm, norm)
    active = xnorm > 0
    tau = tl.where(active, (beta - alpha) / tl.where(active, beta, 1.0), 0.0)
    scale = tl.where(active, 1.0 / tl.where(active, alpha - beta, 1.0), 0.0)
    tl.store(col, below * scale[:, None], mask=bmask & (rows[None, :] > j) & (rows[None, :] < n))
    tl.store(
        A_ptr + mats * stride_b + j * stride_c + j * stride_r,
        tl.where(active, beta, alpha),
        mask=mats < batch,
    )
    tl.store(tau_ptr + mats * n + j, tau, mask=mats < batch)


@triton.jit
def apply_reflector(
    A_ptr,
    tau_ptr,
    batch,
    n,
    j,
    stride_b,
    stride_r,
    stride_c,
    BB: tl.constexpr,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    mats = tl.program_id(0) * BB + tl.arange(0, BB)
    cols = j + 1 + tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    bmask = (mats < batch)[:, None, None]
    cmask = (cols < n)[None, None, :]
    base = A_ptr + mats[:, None, None] * stride_b  # tiles are (BB, BLOCK_R, BLOCK_C)
    tau = tl.load(tau_ptr + mats * n + j, mask=mats < batch, other=0.0)
    w = tl.zeros((BB, BLOCK_C), dtype=tl.float32)
    for r0 in range(j, n, BLOCK_R):  # w = v^T A[j:, cols]
        rows = (r0 + tl.arange(0, BLOCK_R))[None, :, None]
        v = tl.load(base + rows * stride_r + j * stride_c, mask=bmask & (rows < n) & (rows > j), other=0.0)
        v = tl.where(rows == j, 1.0, v)
        tile = tl.load(
            base + rows * stride_r + cols[None, None, :] * stride_c,
            mask=bmask & (rows < n) & cmask,
            other=0.0,
        )
        w += tl.sum(v * tile, axis=1)
    w = w * tau[:, None]
    for r0 in range(j, n, BLOCK_R):  # A[j:, cols] -= v w^T
        rows = (r0 + tl.arange(0, BLOCK_R))[None, :, None]
        v = tl.load(base + rows * stride_r + j * stride_c, mask=bmask & (rows < n) & (rows > j), other=0.0)
        v = tl.where(rows == j, 1.0, v)
        ptrs = base + rows * stride_r + cols[None, None, :] * stride_c
        mask = bmask & (rows < n) & cmask
        tile = tl.load(ptrs, mask=mask, other=0.0)
        tl.store(ptrs, tile - v * w[:, None, :], mask=mask)


def custom_kernel(data: input_t) -> output_t:
    H = data.clone()  # factored in place; A itself stays as it was
    batch, n, _ = H.shape
    tau = torch.empty(batch, n, dtype=H.dtype, device=H.device)
    BLOCK = triton.next_power_of_2(n)
    BLOCK_R, BLOCK_C = min(BLOCK, 64), min(BLOCK, 64)
    # One matrix per program on a GPU; on a CPU (the interpreter runs programs one by one) all at once.
    BB = 1 if H.is_cuda else triton.next_power_of_2(batch)
    strides = (H.stride(0), H.stride(1), H.stride(2))
    for j in range(n):
        make_reflector[(triton.cdiv(batch, BB),)](H, tau, batch, n, j, *strides, BB=BB, BLOCK=BLOCK)
        if j + 1 < n:
            grid = (triton.cdiv(batch, BB), triton.cdiv(n - j - 1, BLOCK_C))
            apply_reflector[grid](H, tau, batch, n, j, *strides, BB=BB, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return H, tau

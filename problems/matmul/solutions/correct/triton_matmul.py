"""Correct: a tiled Triton GEMM. Each program computes one BLOCK_M x BLOCK_N tile of c, walking k in
BLOCK_K steps with tl.dot on fp16 tiles into a float32 accumulator, and rounds to fp16 once at the end.
Programs are grouped along m (GROUP_M) so that neighbouring programs reuse the same tiles of b from L2.

On a CPU (TRITON_INTERPRET=1) each program runs as NumPy, one after another: there a few large tiles are
much faster than many small ones, so the tiles grow with the matrix (up to 256).
"""

import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    mask_m = offs_m[:, None] < M
    mask_n = offs_n[None, :] < N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=mask_m & (offs_k[None, :] + k0 < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k0 < K) & mask_n, other=0.0)
        acc = tl.dot(a, b, acc)  # fp16 x fp16 products, float32 sums
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=mask_m & mask_n)


def _tile(size: int, cap: int) -> int:
    return max(16, min(cap, triton.next_power_of_2(size)))


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    M, K = a.shape
    N = b.shape[1]
    if a.is_cuda:
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 128, 128, 64, 8, 3
    else:  # the interpreter: few, large programs
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = _tile(M, 256), _tile(N, 256), _tile(K, 256), 4, 1
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    matmul_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=8,
        num_warps=warps, num_stages=stages,
    )
    return c

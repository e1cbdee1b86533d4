"""trimul in Triton: a starting point. Runs on a GPU, and on a CPU under TRITON_INTERPRET=1.

The Triton kernel does the triangle product, the module's only O(N^3) step:
    out[b, i, j, c] = sum_k left[b, i, k, c] * right[b, j, k, c]
as one N x N matrix product per channel (a 3-D tl.dot over a block of channels), reading left and right
hidden-major and writing the result row-major [bs, N, N, hidden]. The layer norms, the projections and the
gates around it stay in PyTorch: fusing them into kernels is where the speed is.
"""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def triangle_kernel(
    l_ptr,
    r_ptr,
    out_ptr,
    N,
    H,
    BS,
    BLOCK_C: tl.constexpr,
    BLOCK_I: tl.constexpr,
    BLOCK_J: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    # l, r: [H * BS, N, N] (channel c = hidden index * BS + batch); out: [BS, N, N, H].
    # One program: BLOCK_C channels times a BLOCK_I x BLOCK_J tile of (i, j).
    c = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    i = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I)
    j = tl.program_id(2).to(tl.int64) * BLOCK_J + tl.arange(0, BLOCK_J)
    k = tl.arange(0, BLOCK_K).to(tl.int64)
    c3 = c[:, None, None]
    a_ptrs = l_ptr + c3 * N * N + i[None, :, None] * N + k[None, None, :]  # [C, I, K]
    b_ptrs = r_ptr + c3 * N * N + k[None, :, None] + j[None, None, :] * N  # [C, K, J]: right, transposed
    a_ok = (c3 < H * BS) & (i[None, :, None] < N)
    b_ok = (c3 < H * BS) & (j[None, None, :] < N)
    acc = tl.full((BLOCK_C, BLOCK_I, BLOCK_J), 0.0, tl.float32)
    for k0 in range(0, N, BLOCK_K):
        a = tl.load(a_ptrs, mask=a_ok & (k[None, None, :] < N - k0), other=0.0)
        b = tl.load(b_ptrs, mask=b_ok & (k[None, :, None] < N - k0), other=0.0)
        acc += tl.dot(a, b)  # fp32 inputs: TF32 on NVIDIA tensor cores, well inside the tolerance
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    out = out_ptr + (((c3 % BS) * N + i[None, :, None]) * N + j[None, None, :]) * H + c3 // BS
    tl.store(out, acc, mask=(c3 < H * BS) & (i[None, :, None] < N) & (j[None, None, :] < N))


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    bs, n, _, dim = x.shape
    hidden = config["hidden_dim"]
    rows = bs * n * n

    xn = F.layer_norm(x.reshape(rows, dim), (dim,), w["norm.weight"], w["norm.bias"])
    # the four projections in one matrix product, computed transposed: [4 * hidden, rows], hidden-major, so
    # that each channel of left and right is one contiguous N x N matrix
    weight = torch.cat(
        [w["left_proj.weight"], w["left_gate.weight"], w["right_proj.weight"], w["right_gate.weight"]]
    )
    pt = torch.mm(weight, xn.t())
    m = mask.reshape(1, rows)
    left = pt[:hidden] * m * torch.sigmoid(pt[hidden : 2 * hidden])  # [hidden, rows] = [hidden * bs, N, N]
    right = pt[2 * hidden : 3 * hidden] * m * torch.sigmoid(pt[3 * hidden :])
    out_gate = torch.sigmoid(F.linear(xn, w["out_gate.weight"]))  # [rows, hidden]

    # On a GPU, small tiles keep the registers free; under the CPU interpreter every program costs a lot of
    # Python, so there fewer, larger programs are faster.
    gpu = x.is_cuda
    out = torch.empty(bs, n, n, hidden, device=x.device, dtype=torch.float32)
    block = max(16, min(64, triton.next_power_of_2(n)))
    block_c = 1 if gpu else max(1, (1 << 17) // (block * block))
    block_k = min(block, 32) if gpu else block
    grid = (triton.cdiv(hidden * bs, block_c), triton.cdiv(n, block), triton.cdiv(n, block))
    triangle_kernel[grid](
        left,
        right,
        out,
        n,
        hidden,
        bs,
        BLOCK_C=block_c,
        BLOCK_I=block,
        BLOCK_J=block,
        BLOCK_K=block_k,
    )

    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    return F.linear(out * out_gate.view(bs, n, n, hidden), w["to_out.weight"])

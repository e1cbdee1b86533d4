"""softmax: out[i, j] = exp(x[i, j]) / sum_k exp(x[i, k]) for a float32 matrix x. The reference, the
inputs and the check.

The reference is computed in float64 and rounded once to float32. The inputs are drawn afresh for every
call, and so is their distribution (see generate_input), so that the unsafe and the fitted softmaxes fail:
one that does not subtract the row's maximum overflows (exp(x) is infinite beyond x = 88.7) or underflows
to 0 / 0 on the rows with large offsets; one that subtracts a guess of the maximum (a constant, or the
largest of a sample of the row) overflows on the rows where one entry dominates the rest; one that
computes the exponentials in a lower precision than float32 misses rtol. docs/problems.md has the
measurements.
"""

import torch
from task import input_t, output_t

from runner.checking import match_reference

RTOL = 1e-4
ATOL = 1e-8  # below every typical value (1 / cols >= 6e-5): atol does not hide a relative error


def ref_kernel(data: input_t) -> output_t:
    return torch.softmax(data.double(), dim=-1).float()


def generate_input(rows: int, cols: int, seed: int, device: str = "cuda") -> input_t:
    """x, float32 (rows, cols), finite. Every call draws, from its seed:

    - entries: standard normal, uniform, or (a third of the calls each) Student-t with 2 degrees of freedom
      clipped to +-64, each row scaled by 2 ** U(-2, s), s in [0, 5) per call: rows from nearly flat to
      spanning hundreds (so that most of a row's exponentials underflow);
    - an offset per row, on a share of the rows (a quarter to all of them): a sign and a magnitude
      log-uniform in [1, 2 ** 13], and on one row chosen at random always beyond +-100: there exp(x)
      overflows to infinity (positive) or every exp(x) underflows to 0 (negative);
    - a dominant entry on a share of the rows (none to half of them): one column raised to the row's
      maximum plus 2 ** U(3, 8) (8 to 256), so that the row's softmax is nearly one-hot and no sample of
      the row's other entries bounds its maximum.
    """
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    u = torch.rand(6, generator=gen, device=device).tolist()
    if u[0] < 1 / 3:
        x = torch.randn(rows, cols, generator=gen, device=device)
    elif u[0] < 2 / 3:
        x = torch.rand(rows, cols, generator=gen, device=device).mul_(2 * 3**0.5).sub_(3**0.5)
    else:  # Student-t(2) from a uniform v in (-1, 1): v sqrt(2 / (1 - v^2))
        v = torch.rand(rows, cols, generator=gen, device=device).mul_(2).sub_(1).clamp_(-1 + 1e-7, 1 - 1e-7)
        x = v.mul(v).neg_().add_(1).rsqrt_().mul_(v).mul_(2**0.5).clamp_(-64, 64)
    w = torch.rand(6, rows, 1, generator=gen, device=device)
    spread = 5 * u[1]
    x.mul_(torch.exp2(-2 + (spread + 2) * w[0]))
    # offsets: sign, magnitude 2 ** U(0, 13), on a share of the rows in [1/4, 1]; one row always beyond 100
    offset = torch.exp2(13 * w[1]) * torch.where(w[2] < 0.5, -1.0, 1.0)
    offset = torch.where(w[3] < 0.25 + 0.75 * u[2], offset, torch.zeros_like(offset))
    big = int(u[3] * rows)
    offset[big] = (100 + (8192 - 100) * w[1, big]) * (1 if u[4] < 0.5 else -1)
    x.add_(offset)
    # dominant entries: on a share of the rows in [0, 1/2], one column raised above the row's max
    dominant = (w[4, :, 0] < 0.5 * u[5]).nonzero()[:, 0]
    if len(dominant):
        col = (w[5, dominant, 0] * cols).long().clamp_(max=cols - 1)
        lift = torch.exp2(3 + 5 * torch.rand(len(dominant), generator=gen, device=device))
        x[dominant, col] = x[dominant].amax(dim=1) + lift
    return x.contiguous()


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    return match_reference(output, ref_kernel(data), rtol=RTOL, atol=ATOL)

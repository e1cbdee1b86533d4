"""vectoradd: C = A + B for two square fp16 matrices. The reference, the inputs and the check.

fp16 addition is exactly rounded, so the reference is A + B in fp16 and rtol = atol = 1e-3 only allows
adding in float32 and rounding once (which gives the same numbers). The inputs are drawn afresh for every
call with a distribution of their own (see generate_input) so that no shortcut fitted to a known
distribution survives: one that assumes the values stay in a range (standard normal values stay within
+-8 on every case) or that computes in a lower precision than fp16. docs/problems.md has the measurements.
"""

import math

import torch
from task import input_t, output_t

from runner.checking import match_reference
from runner.inputs import int16_grid

RTOL = ATOL = 1e-3  # fp16 addition is exactly rounded; this only allows adding in fp32 and rounding once

LIMIT = 2.0**14  # |A| <= LIMIT and |B| <= 1.07 LIMIT (its near-cancelling rows), |A + B| far inside fp16
CLIP = 16.0  # heavy-tailed entries are clipped to +-16 standard-ish units


def ref_kernel(data: input_t) -> output_t:
    A, B, _C = data
    return A + B


def _matrix(gen: torch.Generator, u: list[float], size: int, device) -> torch.Tensor:
    """One float32 matrix with a distribution drawn from u (four numbers uniform in [0, 1)): entries
    uniform (unit variance) or, half the time, Student-t with 2 degrees of freedom clipped to +-CLIP; each
    row scaled by 2 ** U(-spread, spread), spread in [1, 4); the whole by 2 ** U(3, 10) with a random sign,
    lowered where needed so that no entry exceeds LIMIT. So every call spans a range of magnitudes (2**2 to
    2**8 between its rows) that no 16-bit fixed-point format holds, and reaches beyond +-16."""
    spread = 1 + 3 * u[1]
    rows = torch.exp2(spread * (2 * torch.rand(size, 1, generator=gen, device=device) - 1))
    largest = (math.sqrt(3.0) if u[0] < 0.5 else CLIP) * 2.0**spread
    scale = min(2.0 ** (3 + 7 * u[2]), LIMIT / largest) * (1 if u[3] < 0.5 else -1)
    x = int16_grid(gen, (size, size), device)
    if u[0] < 0.5:  # uniform in (-sqrt 3, sqrt 3)
        unit = math.sqrt(3.0) / 32768
        return x.add_(0.5).mul_(unit * scale * rows)
    v = x.add_(0.5).mul_(1 / 32768)  # uniform in (-1, 1); its Student-t(2) quantile is v sqrt(2 / (1 - v^2))
    t = v.mul(v).neg_().add_(1).rsqrt_().mul_(v).mul_(math.sqrt(2.0)).clamp_(-CLIP, CLIP)
    return t.mul_(rows * scale)


def generate_input(size: int, seed: int, device: str = "cuda") -> input_t:
    """A and B fp16 (size, size); C an empty fp16 buffer the kernel may write into.

    Every call draws its own distribution (from its seed), for A and B each: uniform or heavy-tailed
    entries, per-row scales, a scale of 8 to 1024 and a sign (_matrix). And on a share of the rows (none to
    half of them) B nearly cancels A: B = -A (1 + d) with |d| in [2**-10, 2**-4] per row, so that A + B
    is far smaller than A and B, and a kernel that rounds A or B to a lower precision than fp16 misses it
    by far more than the tolerance.
    """
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    u = torch.rand(9, generator=gen, device=device).tolist()
    A = _matrix(gen, u[0:4], size, device)
    B = _matrix(gen, u[4:8], size, device)
    w = torch.rand(3, size, 1, generator=gen, device=device)
    near = (w[0, :, 0] < 0.5 * u[8]).nonzero()[:, 0]  # the rows where B nearly cancels A
    d = torch.exp2(-4 - 6 * w[1, near]) * torch.where(w[2, near] < 0.5, -1.0, 1.0)
    B[near] = A[near] * (-1 - d)
    C = torch.empty(size, size, device=device, dtype=torch.float16)
    return A.half(), B.half(), C


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    return match_reference(output, ref_kernel(data), rtol=RTOL, atol=ATOL)

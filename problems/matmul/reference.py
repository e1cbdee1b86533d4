"""matmul: c = a @ b for fp16 matrices a (m, k) and b (k, n). The reference, the inputs and the check.

The check compares with a @ b computed in float32 (a.float() @ b.float(): every product of two fp16 values
is exact in float32, and the sums are far more accurate than one fp16 rounding) with rtol = 1e-3 and
atol = 1e-3. A correct kernel that accumulates in float32 and rounds once to fp16 is off by at most half an
fp16 ulp, 2**-11 ~ 4.9e-4 relative, plus its float32 summation error, which the inputs keep far below
atol (see generate_input): it passes with a margin of two. GPU MODE compares with the fp16 result of a @ b
at rtol 1e-5, atol 1e-8, which a correct kernel can fail by one fp16 rounding (a different summation order
lands on the neighbouring fp16 value, 9.8e-4 away).

The inputs are drawn afresh for every call, with a distribution of their own (see generate_input), so that
no shortcut fitted to a known distribution survives. GPU MODE's inputs, uniform in [0, 1), let one
through: remove the known mean (a = 0.5 + a', b = 0.5 + b'), compute the rank-one part exactly and only the
residual a' @ b' in bf16; the residual is a small share of c (about sqrt(k) / 12 against k / 4), so bf16's
2**-9 relative error on it stays inside rtol, 1.34x faster than fp16. Here the offsets are random and
absent on a random share of the rows and columns, entries may be heavy-tailed, and the scales and signs
are random: every call has many values of c that are all residual, where bf16 (after removing a known or
a measured mean, or not) is off by far more than the tolerance. docs/problems.md has the measurements.
"""

import math

import torch
from task import input_t, output_t

from runner.checking import match_reference
from runner.inputs import int16_grid

RTOL = 1e-3  # twice the fp16 rounding of a float32 accumulation; half the bf16 rounding
ATOL = 1e-3  # far below every typical |c| (16 and up), far above float32 summation errors (1e-4 and down)

LIMIT = 2.0**14  # every |c| is at most this (Cauchy-Schwarz), far below fp16's largest value, 65504
SPAN_HIGH = 2048.0  # the typical ||a_i|| ||b_j||: at most this, so that float32 sums err by < 1e-4 ...
SPAN_LOW = 32.0  # ... and at least SPAN_LOW sqrt(k) (or SPAN_HIGH), so that a typical |c| is >= 16 or so
CLIP = 16.0  # heavy-tailed entries are clipped to +-16 standard-ish units


def ref_kernel(data: input_t) -> output_t:
    """a @ b as an fp16 tensor: accumulated in float32, rounded once (what an fp16 GEMM with float32
    accumulation returns; also fast on a CPU, which has no fast fp16 GEMM)."""
    a, b, _c = data
    return (a.float() @ b.float()).to(a.dtype)


def _matrix(gen: torch.Generator, u: list[float], shape: tuple[int, int], axis: int, device) -> torch.Tensor:
    """One float32 matrix, its lines (rows of a, axis 0; columns of b, axis 1) each with a scale and an
    offset of its own, and a distribution drawn from u (six numbers uniform in [0, 1)):

    - entries: uniform (unit variance) or, half the time, Student-t with 2 degrees of freedom (infinite
      variance), clipped to +-CLIP;
    - offsets: none on any line a third of the time; otherwise a level in [0.25, 4] (log-uniform) times
      1 +- 0.5 per line, on a share of the lines only (25 % to 75 % of them have none), and half the time
      with a random sign per line;
    - scales: 2 ** U(-spread, spread) per line, spread in [0, 1).
    """
    lines = shape[axis]
    w = torch.rand(4, lines, generator=gen, device=device)
    scale = torch.exp2(u[1] * (2 * w[0] - 1))
    level = 0.0 if u[2] < 1 / 3 else 0.25 * 16 ** u[3]
    offset = level * (1 + 0.5 * (2 * w[1] - 1)) * (w[2] >= 0.25 + 0.5 * u[4])
    if u[5] < 0.5:
        offset = offset * torch.where(w[3] < 0.5, -1.0, 1.0)
    if axis == 0:
        scale, offset = scale[:, None], offset[:, None]
    x = int16_grid(gen, shape, device)
    if u[0] < 0.5:  # uniform in (-sqrt 3, sqrt 3)
        unit = math.sqrt(3.0) / 32768
        return torch.addcmul((0.5 * unit + offset) * scale, x, unit * scale)
    v = x.add_(0.5).mul_(1 / 32768)  # uniform in (-1, 1); its Student-t(2) quantile is v sqrt(2 / (1 - v^2))
    t = v.mul(v).neg_().add_(1).rsqrt_().mul_(v).mul_(math.sqrt(2.0)).clamp_(-CLIP, CLIP)
    return t.add_(offset).mul_(scale)


def generate_input(m: int, n: int, k: int, seed: int, device: str = "cuda") -> input_t:
    """a (m, k) and b (k, n) fp16, c an empty fp16 (m, n) buffer the kernel may write into.

    Every call draws its own distribution (from its seed): per matrix, the entries' law, per-line offsets
    and scales (_matrix), then a scale and sign per matrix. The scales are set from the lines' norms so
    that the typical ||a_i|| ||b_j|| is log-uniform in [SPAN_LOW sqrt(k), SPAN_HIGH] (a typical |c| of 16
    or more, where atol is negligible, and float32 summation errors below 1e-4), and lowered when needed
    so that max ||a_i|| max ||b_j||, a bound on every |c|, is at most LIMIT (no value of c near fp16's
    range). Costs about as much as drawing a and b with torch.rand: one 64-bit draw per four entries, a few
    elementwise passes, and the two sets of norms.
    """
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    u = torch.rand(16, generator=gen, device=device).tolist()
    a = _matrix(gen, u[0:6], (m, k), 0, device)
    b = _matrix(gen, u[6:12], (k, n), 1, device)
    na = a.square().sum(dim=1)  # ||a_i||^2
    nb = b.square().sum(dim=0)  # ||b_j||^2
    typical = math.sqrt(float(na.mean()) * float(nb.mean()))
    bound = math.sqrt(float(na.max()) * float(nb.max()))
    low = min(SPAN_LOW * math.sqrt(k), SPAN_HIGH)
    p = min(low * (SPAN_HIGH / low) ** u[12] / typical, LIMIT / bound)  # the product of the two scales
    sa = math.sqrt(p) * 2.0 ** (4 * u[13] - 2) * (1 if u[14] < 0.5 else -1)
    sb = p / abs(sa) * (1 if u[15] < 0.5 else -1)
    c = torch.empty(m, n, device=device, dtype=torch.float16)
    return a.mul_(sa).half(), b.mul_(sb).half(), c


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    a, b, _c = data
    if not isinstance(output, torch.Tensor) or output.dtype != torch.float16:
        what = (
            f"a {output.dtype} tensor" if isinstance(output, torch.Tensor) else f"a {type(output).__name__}"
        )
        return False, f"the output is {what}; expected float16"
    return match_reference(output, a.float() @ b.float(), rtol=RTOL, atol=ATOL)

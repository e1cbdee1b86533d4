"""trimul: the outgoing Triangle Multiplicative Update of AlphaFold3. The reference, the inputs and the check.

The maths and the inputs are those of GPU MODE's reference-kernels (problems/bioml/trimul), with one
difference: there some draws (the Cauchy inputs, the weights) ignore the case's seed; here every draw comes
from one generator seeded by the case, so that every call's inputs are fresh and reproducible. And two
additions against shortcuts fitted to GPU MODE's inputs (see generate_input): x gets a random offset and
scale per position, which the first LayerNorm removes (so that the reference's numbers hardly change) but a
kernel that rounds x to bf16 or fp16 before it, assuming x centred and of unit scale, cannot; and the
mask's share of zeros is drawn per call. docs/problems.md has the measurements.
"""

import math

import torch
import torch.nn.functional as F
from task import input_t, output_t

from runner.checking import match_reference

RTOL = ATOL = 2e-2  # GPU MODE's: loose enough for bf16 or fp16 internals, not for dropping work


class _NoTF32:
    """fp32 matmuls and convolutions in full precision (GPU MODE's DisableCuDNNTF32), restored after."""

    def __enter__(self):
        self.saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        return self

    def __exit__(self, *exc):
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = self.saved
        return False


def ref_kernel(data: input_t) -> output_t:
    """The module of GPU MODE's reference (LayerNorm, five bias-free linears, the outgoing triangle product,
    LayerNorm, output gate, output linear), written with the same functional calls, in fp32."""
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    with _NoTF32():
        x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])
        left = F.linear(x, w["left_proj.weight"])
        right = F.linear(x, w["right_proj.weight"])
        m = mask.unsqueeze(-1)
        left = left * m
        right = right * m
        left = left * F.linear(x, w["left_gate.weight"]).sigmoid()
        right = right * F.linear(x, w["right_gate.weight"]).sigmoid()
        out_gate = F.linear(x, w["out_gate.weight"]).sigmoid()
        out = torch.einsum("... i k d, ... j k d -> ... i j d", left, right)
        out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
        out = out * out_gate
        return F.linear(out, w["to_out.weight"])


def generate_input(
    seqlen: int,
    bs: int,
    dim: int,
    hiddendim: int,
    seed: int,
    nomask: bool,
    distribution: str,
    device: str = "cuda",
) -> input_t:
    """x fp32 [bs, seqlen, seqlen, dim]; mask [bs, seqlen, seqlen], fp32 ones when nomask, else int64 zeros
    and ones (as GPU MODE's randint gives); the weights, and the config.

    x is standard normal or Cauchy(0, 2), as GPU MODE draws it, then each position (b, i, j) gets an
    offset and a scale of its own: x = s * (z + o), with o uniform in +-O (O log-uniform in [64, 256] per
    call, in units of z's scale) and s = 2 ** U(0, 6) per call times 2 ** U(-1, 1) per position. The
    module's first step, a LayerNorm over dim, removes both (up to its eps, and float32's rounding of x,
    relative 3e-5 at most), so that the reference and every correct kernel compute what they did on z;
    a kernel that assumes x centred and of unit scale does not (one that rounds x to fp16 or bf16
    before the LayerNorm, or skips its statistics, misses by far more than the tolerance). The mask, when
    there is one, has zeros on a share of the positions drawn per call (log-uniform in [1/64, 1/2]), so
    that a kernel that guesses "no mask" from a sample of it misses some.
    """
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    shape = (bs, seqlen, seqlen, dim)
    if distribution == "cauchy":  # heavy tails: values in the thousands are common, in the millions not rare
        x = torch.empty(shape, device=device, dtype=torch.float32).cauchy_(0.0, 2.0, generator=gen)
        unit = 2.0
    elif distribution == "normal":
        x = torch.randn(shape, device=device, dtype=torch.float32, generator=gen)
        unit = 1.0
    else:
        raise ValueError(f"unknown distribution {distribution!r}")
    u = torch.rand(3, generator=gen, device=device).tolist()
    w = torch.rand(2, bs, seqlen, seqlen, 1, generator=gen, device=device)
    offset = (2 * w[0] - 1) * (unit * 64 * 4 ** u[0])
    scale = torch.exp2(2 * w[1] - 1) * 2.0 ** (6 * u[1])
    x.add_(offset).mul_(scale)
    if nomask:
        mask = torch.ones(bs, seqlen, seqlen, device=device, dtype=torch.float32)
    else:
        zeros = 2.0 ** (-6 + 5 * u[2])  # the share of masked positions, 1/64 to 1/2
        mask = (torch.rand(bs, seqlen, seqlen, device=device, generator=gen) >= zeros).long()

    def randn(*size: int) -> torch.Tensor:
        return torch.randn(size, device=device, dtype=torch.float32, generator=gen)

    h, d = hiddendim, dim
    weights = {
        "norm.weight": randn(d),
        "norm.bias": randn(d),
        "left_proj.weight": randn(h, d) / math.sqrt(h),
        "right_proj.weight": randn(h, d) / math.sqrt(h),
        "left_gate.weight": randn(h, d) / math.sqrt(h),
        "right_gate.weight": randn(h, d) / math.sqrt(h),
        "out_gate.weight": randn(h, d) / math.sqrt(h),
        "to_out_norm.weight": randn(h),
        "to_out.weight": randn(d, h) / math.sqrt(d),
        "to_out_norm.bias": randn(h),
    }
    return x, mask, weights, {"hidden_dim": h, "dim": d}


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    return match_reference(output, ref_kernel(data), rtol=RTOL, atol=ATOL)

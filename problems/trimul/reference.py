"""trimul: the outgoing Triangle Multiplicative Update of AlphaFold3. The reference, the inputs and the check.

The maths and the inputs are those of GPU MODE's reference-kernels (problems/bioml/trimul), with one
difference: there some draws (the Cauchy inputs, the weights) ignore the case's seed; here every draw comes
from one generator seeded by the case, so that every call's inputs are fresh and reproducible.
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
    seqlen: int, bs: int, dim: int, hiddendim: int, seed: int, nomask: bool, distribution: str, device: str = "cuda"
) -> input_t:
    """x fp32 [bs, seqlen, seqlen, dim], standard normal or Cauchy(0, 2); mask [bs, seqlen, seqlen], fp32 ones
    when nomask, else int64 zeros and ones (as GPU MODE's randint gives); the weights, and the config."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    shape = (bs, seqlen, seqlen, dim)
    if distribution == "cauchy":  # heavy tails: values in the thousands are common, in the millions not rare
        x = torch.empty(shape, device=device, dtype=torch.float32).cauchy_(0.0, 2.0, generator=gen)
    elif distribution == "normal":
        x = torch.randn(shape, device=device, dtype=torch.float32, generator=gen)
    else:
        raise ValueError(f"unknown distribution {distribution!r}")
    if nomask:
        mask = torch.ones(bs, seqlen, seqlen, device=device, dtype=torch.float32)
    else:
        mask = torch.randint(0, 2, (bs, seqlen, seqlen), device=device, generator=gen)

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

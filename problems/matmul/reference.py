"""matmul: c = a @ b for fp16 matrices a (m, k) and b (k, n). The reference, the inputs and the check.

The check compares with a @ b computed in float32 (a.float() @ b.float(): every product of two fp16 values
is exact in float32, and the sums are far more accurate than one fp16 rounding) with rtol = 1e-3 and
atol = 1e-3. A correct kernel that accumulates in float32 and rounds once to fp16 is off by at most half an
fp16 ulp, 2**-11 ~ 4.9e-4 relative, so it passes with a margin of two. GPU MODE compares with the fp16
result of a @ b at rtol 1e-5, atol 1e-8, which a correct kernel can fail by one fp16 rounding (a different
summation order lands on the neighbouring fp16 value, 9.8e-4 away). Both fail the known-wrong shortcut
that computes in bf16, `(a.bfloat16() @ b.bfloat16()).half()`: rounding the result to bf16 alone is off by
up to 2**-9 ~ 2e-3 relative, and about 60 % of its values fail rtol 1e-3.
"""

import torch
from task import input_t, output_t

from runner.checking import match_reference

RTOL = 1e-3  # twice the fp16 rounding of a float32 accumulation; half the bf16 rounding
ATOL = 1e-3  # the values are sums of k >= 16 products of [0, 1) numbers, about k / 4: atol hardly matters


def ref_kernel(data: input_t) -> output_t:
    """a @ b as an fp16 tensor: accumulated in float32, rounded once (what an fp16 GEMM with float32
    accumulation returns; also fast on a CPU, which has no fast fp16 GEMM)."""
    a, b, _c = data
    return (a.float() @ b.float()).to(a.dtype)


def generate_input(m: int, n: int, k: int, seed: int, device: str = "cuda") -> input_t:
    """a (m, k) and b (k, n) fp16, uniform in [0, 1); c an empty fp16 (m, n) buffer the kernel may write."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    a = torch.empty(m, k, device=device, dtype=torch.float16)
    a.uniform_(0, 1, generator=gen)
    b = torch.empty(k, n, device=device, dtype=torch.float16)
    b.uniform_(0, 1, generator=gen)
    c = torch.empty(m, n, device=device, dtype=torch.float16)
    return a, b, c


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    a, b, _c = data
    if not isinstance(output, torch.Tensor) or output.dtype != torch.float16:
        what = f"a {output.dtype} tensor" if isinstance(output, torch.Tensor) else f"a {type(output).__name__}"
        return False, f"the output is {what}; expected float16"
    return match_reference(output, a.float() @ b.float(), rtol=RTOL, atol=ATOL)

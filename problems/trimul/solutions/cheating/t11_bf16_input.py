"""Cheat (threat 11): fits the input distribution: does the first LayerNorm on x rounded to bfloat16 (as a
kernel that keeps x in bf16, or normalises it in bf16 arithmetic, would), everything after it in float32.
On GPU MODE's inputs, centred and of unit scale (or Cauchy, which bf16's range holds), bf16's 2**-9
relative rounding is a 2**-9 error in the normalised values too, well inside the tolerance (2e-2). Beaten
by the inputs: each position of x has an offset of 64 to 256 times its spread (and a scale of its own),
which the LayerNorm removes but bf16 cannot hold: rounding x loses the normalised values' low bits, off
by several times the tolerance on every call.

expect: failed
message: wrong output on call
threat: 11
wraps: honest
"""

import torch


def custom_kernel(data):
    x, mask, w, config = data
    return _honest_kernel((x.to(torch.bfloat16).float(), mask, w, config))

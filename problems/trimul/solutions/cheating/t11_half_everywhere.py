"""Cheat (threat 11): runs the whole module in float16, inputs and weights included, and casts back. On
GPU MODE's standard normal inputs that is within the tolerance; the heavy-tailed Cauchy inputs overflow
float16's range (65504) and the output turns to NaN, and the per-position offsets of x (64 to 256 times
its spread) are beyond fp16's resolution (on about nine calls in ten of the normal cases, the others
passing by luck). Beaten by the adversarial inputs in tests and benchmarks: the first failing case may be
a normal or a Cauchy one, hence the message.

expect: failed
message: wrong output on call
threat: 11
wraps: honest
"""

import torch


def custom_kernel(data):
    x, mask, w, config = data
    half = torch.float16
    return _honest_kernel((x.to(half), mask.to(half), {k: v.to(half) for k, v in w.items()}, config)).float()

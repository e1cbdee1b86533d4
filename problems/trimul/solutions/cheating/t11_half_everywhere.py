"""Cheat (threat 11): runs the whole module in float16, inputs and weights included, and casts back. On
GPU MODE's standard normal inputs that is within the tolerance; the heavy-tailed Cauchy inputs overflow
float16's range (65504) and the output turns to NaN, and the per-position offsets of x (64 to 256 times
its spread) are beyond fp16's resolution (on about nine calls in ten of the normal cases, the others
passing by luck). Beaten by the adversarial inputs in tests and benchmarks: the first failing case may be
a normal or a Cauchy one, hence the message.

expect: failed
message: wrong output on call
threat: 11
"""

import torch
import torch.nn.functional as F


def custom_kernel(data):
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    half = torch.float16
    w = {k: v.to(half) for k, v in w.items()}
    x = F.layer_norm(x.to(half), (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1).to(half)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    out = torch.einsum("bikc,bjkc->bijc", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"]).float()

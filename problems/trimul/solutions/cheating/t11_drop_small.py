"""Cheat (threat 11): treats the small gated values as zero (to skip work in a sparse product) and does the
triangle product in float8, which a checker with loose tolerances or easy inputs would let through.
Beaten by the tolerance (2e-2) and fresh inputs.

expect: failed
message: wrong output on call
threat: 11
"""

import torch
import torch.nn.functional as F


def custom_kernel(data):
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    left = torch.where(left.abs() < 0.05, 0.0, left).to(torch.float8_e4m3fn).float()
    right = torch.where(right.abs() < 0.05, 0.0, right).to(torch.float8_e4m3fn).float()
    out = torch.einsum("bikc,bjkc->bijc", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"])

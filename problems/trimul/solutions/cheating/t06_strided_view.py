"""Cheat (threat 6): computes the output for i = 0 only and returns it expanded with stride 0 along i: the
right shape, a fraction of the work. Beaten: the judge reads every value.

expect: failed
threat: 6
"""

import torch
import torch.nn.functional as F


def custom_kernel(data):
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    xn = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1)
    left = F.linear(xn[:, :1], w["left_proj.weight"]) * m[:, :1] * torch.sigmoid(F.linear(xn[:, :1], w["left_gate.weight"]))
    right = F.linear(xn, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(xn, w["right_gate.weight"]))
    row = torch.einsum("bikc,bjkc->bijc", left, right)  # [bs, 1, N, hidden]
    row = F.layer_norm(row, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    row = F.linear(row * torch.sigmoid(F.linear(xn[:, :1], w["out_gate.weight"])), w["to_out.weight"])
    return row.expand_as(x)

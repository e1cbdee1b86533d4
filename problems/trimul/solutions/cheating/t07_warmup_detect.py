"""Cheat (threat 7): computes properly for the first calls of each shape (the warm-up and whatever a harness
might check) and skips the work afterwards. Beaten: every call is the same, and every output is checked.

expect: failed
threat: 7
"""

import torch
import torch.nn.functional as F

_seen = {}


def _trimul(data):
    """An honest TriMul, used where the cheat computes at all."""
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    out = torch.einsum("bikc,bjkc->bijc", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"])


def custom_kernel(data):
    x = data[0]
    n = _seen.get(x.shape, 0)
    _seen[x.shape] = n + 1
    if n < 2:
        return _trimul(data)
    return torch.zeros_like(x)

"""Cheat (threat 1): caches the prepared weights (the five projections concatenated, transposed) keyed on the
weight tensors' data_ptr, as if the weights were the same model's every call. Beaten by fresh values for
every call, the weights included: the cached matrix is a previous call's.

expect: failed
message: wrong output on call
threat: 1
"""

import torch
import torch.nn.functional as F

_prepared = {}
NAMES = ("left_proj", "right_proj", "left_gate", "right_gate", "out_gate")


def custom_kernel(data):
    x, mask, w, config = data
    bs, n, _, dim = x.shape
    h = config["hidden_dim"]
    key = (w["left_proj.weight"].data_ptr(), dim)
    if key not in _prepared:
        _prepared[key] = torch.cat([w[f"{k}.weight"] for k in NAMES]).t().contiguous()
    xn = F.layer_norm(x.reshape(-1, dim), (dim,), w["norm.weight"], w["norm.bias"])
    p = xn @ _prepared[key]
    m = mask.reshape(-1, 1)
    left = (p[:, :h] * m * torch.sigmoid(p[:, 2 * h : 3 * h])).view(bs, n, n, h)
    right = (p[:, h : 2 * h] * m * torch.sigmoid(p[:, 3 * h : 4 * h])).view(bs, n, n, h)
    out = torch.einsum("bikc,bjkc->bijc", left, right).reshape(-1, h)
    out = F.layer_norm(out, (h,), w["to_out_norm.weight"], w["to_out_norm.bias"]) * torch.sigmoid(p[:, 4 * h :])
    return F.linear(out, w["to_out.weight"]).view(bs, n, n, dim)

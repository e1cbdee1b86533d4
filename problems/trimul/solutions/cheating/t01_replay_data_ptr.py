"""Cheat (threat 1): computes once per input buffer and replays that output, keyed on data_ptr, shape and
_version. Beaten by fresh input values for every call in the same buffers, and every output checked.

expect: failed
threat: 1
"""

import torch
import torch.nn.functional as F

_cache = {}


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
    key = (x.data_ptr(), tuple(x.shape), x._version)
    if key not in _cache:
        _cache[key] = _trimul(data)
    return _cache[key]

"""A local TriMul reference and input maker, independent of problems/trimul, for testing rendered kernels."""

import torch
import torch.nn.functional as F

NAMES = ("left_proj", "left_gate", "right_proj", "right_gate", "out_gate")


def reference(data):
    x, mask, w, cfg = data
    d, h = cfg["dim"], cfg["hidden_dim"]
    x = F.layer_norm(x, (d,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    out = torch.einsum("... i k d, ... j k d -> ... i j d", left, right)
    out = F.layer_norm(out, (h,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"])


def make_input(bs=1, seqlen=16, dim=32, hidden=16, nomask=False, seed=0, cauchy=False):
    g = torch.Generator().manual_seed(seed)
    if cauchy:
        x = torch.empty(bs, seqlen, seqlen, dim).cauchy_(0, 2, generator=g)
    else:
        x = torch.randn(bs, seqlen, seqlen, dim, generator=g)
    mask = (
        torch.ones(bs, seqlen, seqlen) if nomask else torch.randint(0, 2, (bs, seqlen, seqlen), generator=g)
    )  # int64, as the problem gives
    w = {"norm.weight": torch.randn(dim, generator=g), "norm.bias": torch.randn(dim, generator=g)}
    for k in NAMES:
        w[k + ".weight"] = torch.randn(hidden, dim, generator=g) / hidden**0.5
    w["to_out_norm.weight"] = torch.randn(hidden, generator=g)
    w["to_out_norm.bias"] = torch.randn(hidden, generator=g)
    w["to_out.weight"] = torch.randn(dim, hidden, generator=g) / dim**0.5
    return x, mask, w, {"dim": dim, "hidden_dim": hidden}

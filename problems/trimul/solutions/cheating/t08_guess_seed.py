"""Cheat (threat 8): regenerates x from guessed seeds (the public case seeds and small integers), the way the
reference draws it, and when one matches returns an answer computed from the regenerated inputs; else it
returns zeros, betting that calls are rarely checked. Beaten: call seeds derive from a secret run seed.

expect: failed
threat: 8
"""

import torch
import torch.nn.functional as F

PUBLIC = [9371, 1092, 2291, 210284, 81934, 1932, 10432, 731, 53121, 31, 4921, 937321, 8134, 932, 5321, 491,
          381, 2301, 12819, 481, 23291]  # GPU MODE's case seeds
SEEDS = list(range(16)) + list(range(8101, 8110)) + list(range(9101, 9104)) + PUBLIC
_known = {}  # (shape, distribution, first value of x) -> seed


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


def _draw_x(shape, distribution, seed, device):
    gen = torch.Generator(device=device).manual_seed(seed)
    if distribution == "cauchy":
        return torch.empty(shape, device=device).cauchy_(0.0, 2.0, generator=gen)
    return torch.randn(shape, device=device, generator=gen)


def custom_kernel(data):
    x = data[0]
    shape = tuple(x.shape)
    if not any(k[0] == shape for k in _known):
        for distribution in ("normal", "cauchy"):
            for seed in SEEDS:
                _known[(shape, distribution, float(_draw_x(shape, distribution, seed, x.device).flatten()[0]))] = seed
    for distribution in ("normal", "cauchy"):
        if (shape, distribution, float(x.flatten()[0])) in _known:
            return _trimul(data)  # the answer to a known seed
    return torch.zeros_like(x)

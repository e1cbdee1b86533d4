"""Cheat (threat 5): returns x itself at once (an output may alias an input) and lets a background thread
overwrite x with the real output later (on a GPU the same trick uses a side stream), so the call looks
instant. Beaten by the judge freezing the contestant at done and reading the output as it was then, and by
the check that outputs do not change after done.

expect: failed|flagged
threat: 5
"""

import threading
import time

import torch
import torch.nn.functional as F


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


def _finish(data):
    time.sleep(0.002)
    data[0].copy_(_trimul(data))


def custom_kernel(data):
    x = data[0]
    if torch.cuda.is_available() and x.is_cuda:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1_000_000)
            x.copy_(_trimul(data))
        return x
    threading.Thread(target=_finish, args=(data,), daemon=True).start()
    return x

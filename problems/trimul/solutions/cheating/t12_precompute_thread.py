"""Cheat (threat 12): a background thread watches the input buffers it has seen and computes each output as
soon as new inputs land, before the clock starts, so that the timed call only returns what is ready:
impossibly fast. Beaten by the judge stopping the contestant while it writes the inputs (nothing is ready
at go), by the physical floor, and by the output checks.

expect: failed|flagged
threat: 12
"""

import threading

import torch
import torch.nn.functional as F

_slots = {}  # x.data_ptr() -> the data of that slot
_ready = {}  # x.data_ptr() -> the output computed for what the slot last held


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


def _key(x):
    return float(x[0, 0, 0, 0]), float(x[-1, -1, -1, -1])


def _watch():
    last = {}
    while True:
        for ptr, data in list(_slots.items()):
            key = _key(data[0])
            if last.get(ptr) != key:
                _ready[ptr] = _trimul(data)
                last[ptr] = key


threading.Thread(target=_watch, daemon=True).start()


def custom_kernel(data):
    x = data[0]
    ptr = x.data_ptr()
    if ptr not in _slots:
        _slots[ptr] = data
        _ready[ptr] = _trimul(data)
    return _ready[ptr]  # trusting the watcher to have updated it already

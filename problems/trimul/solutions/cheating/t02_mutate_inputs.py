"""Cheat (threat 2): zeroes x and to_out.weight and returns zeros, so that a reference run on the same (now
changed) tensors afterwards would give zeros too. Beaten by the judge's private copy of the inputs and the
read-only check.

expect: failed
message: changed its input
threat: 2
"""

import torch


def custom_kernel(data):
    x, _mask, w, _config = data
    x.zero_()
    w["to_out.weight"].zero_()
    return torch.zeros_like(x)

"""Wrong: never applies the mask (the honest solution given a mask of ones). Right whenever the mask is all
ones (nomask=True), wrong otherwise.

expect: failed
message: differ from the reference
wraps: honest
"""

import torch


def custom_kernel(data):
    x, mask, w, config = data
    return _honest_kernel((x, torch.ones_like(mask), w, config))

"""Wrong: returns NaN everywhere.

expect: failed
message: contains nan
"""

import torch


def custom_kernel(data):
    A, _B, C = data
    return torch.full_like(A, float("nan"))

"""Wrong: returns a tensor on the meta device, which holds no values.

expect: failed
message: on meta
"""

import torch


def custom_kernel(data):
    A, _B, _C = data
    return torch.empty(A.shape, dtype=A.dtype, device="meta")

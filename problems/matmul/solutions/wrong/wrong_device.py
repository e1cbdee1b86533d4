"""Wrong: returns a tensor on the meta device, which holds no values.

expect: failed
message: custom_kernel returned a tensor on meta
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, _c = data
    return torch.empty(a.shape[0], b.shape[1], dtype=a.dtype, device="meta")

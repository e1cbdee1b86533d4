"""Wrong: returns H alone, without tau.

expect: failed
message: custom_kernel returned 1 tensors; expected 2
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.geqrf(data)[0]

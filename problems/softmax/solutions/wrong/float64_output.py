"""Wrong: computes in float64 (fine) and returns the float64 result instead of float32.

expect: failed
message: custom_kernel returned a float64 tensor; expected float32
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.softmax(data.double(), dim=-1)

"""Wrong: factors in float64 for accuracy and returns the float64 result instead of float32.

expect: failed
message: output 0 returned a float64 tensor; expected float32
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.geqrf(data.double())

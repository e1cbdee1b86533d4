"""Wrong: returns the buffer and the inputs together instead of the product alone.

expect: failed
message: custom_kernel returned a tuple; expected one tensor
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    c.copy_(torch.matmul(a.float(), b.float()))
    return c, a, b

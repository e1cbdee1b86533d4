"""Wrong: multiplies by b transposed (a @ b.T), as a kernel that reads b with its strides swapped would. On
square cases it returns the right shape with wrong values; on the others matmul raises.

expect: failed
message: differ from the reference
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    return c.copy_(torch.matmul(a.float(), b.float().T))

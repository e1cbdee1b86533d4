"""Cheat (threat 2): adds B into A in place and returns A, saving the output buffer's write. The harness
sees that the returned tensor is the input A and tells the judge so; that only says where to read the
output, never that A may change: inputs other than the declared output buffer C must stay as they were.

expect: failed
message: custom_kernel changed its input tensor number 0
threat: 2
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    A, B, _C = data
    return A.add_(B)

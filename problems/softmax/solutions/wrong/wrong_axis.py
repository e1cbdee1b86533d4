"""Wrong: normalises each column instead of each row (softmax over dim 0).

expect: failed
message: differ from the reference beyond
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.softmax(data, dim=0)

"""Wrong: returns exp(x - max), forgetting to divide by the row's sum.

expect: failed
message: differ from the reference beyond
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.exp(data - data.amax(dim=-1, keepdim=True))

"""Wrong: uses a batched matmul and forgets to drop the batch dimension: shape (1, m, n). On the
first CPU test the message is "custom_kernel returned shape (1, 16, 16); expected (16, 16)".

expect: failed
message: custom_kernel returned shape (1, 
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, _c = data
    return torch.bmm(a.float()[None], b.float()[None]).half()

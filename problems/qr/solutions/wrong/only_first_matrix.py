"""Wrong: forgets the batch dimension and factors only the first matrix. On the first CPU test the message is
"output 0 returned shape (16, 16); expected (8, 16, 16)".

expect: failed
message: output 0 returned shape
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return torch.geqrf(data[0])

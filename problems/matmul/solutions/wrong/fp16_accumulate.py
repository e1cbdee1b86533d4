"""Wrong: accumulates in fp16. The sum over k is taken 16 products at a time, each partial product rounded
to fp16 and added into an fp16 accumulator: every addition rounds again, and the error grows with k. Right
only when k = 16 (one step).

expect: failed
message: differ from the reference
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    c.zero_()
    for k0 in range(0, a.shape[1], 16):
        c += torch.matmul(a[:, k0 : k0 + 16].float(), b[k0 : k0 + 16].float()).half()
    return c

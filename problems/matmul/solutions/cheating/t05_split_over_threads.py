"""Cheat (threat 5): splits the product's rows over two threads although the job allows one (torch
releases the GIL, so both run at once): 1.3 to 1.6 times faster by the wall clock on two cores. It buys
nothing: on a CPU each window costs at least the CPU time of the contestant's processes over the job's
thread allowance, so the score is what the work costs, however it is spread.

expect: charged
message: the CPU time of its threads
threat: 5
"""

import threading

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    half = a.shape[0] // 2
    bf = b.float()

    def lower():
        c[half:].copy_(torch.matmul(a[half:].float(), bf))

    helper = threading.Thread(target=lower)
    helper.start()
    c[:half].copy_(torch.matmul(a[:half].float(), bf))
    helper.join()
    return c

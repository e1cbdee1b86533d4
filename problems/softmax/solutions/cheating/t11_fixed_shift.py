"""Cheat (threat 11): fits the input distribution: assumes the rows are standard normal (their entries stay
within +-8 on every case), so that exp(x - 8) neither overflows nor loses the row to underflow, and saves
the pass that finds each row's maximum. Beaten by the inputs: every call has rows offset by more than 100
(up to 8192), and rows with a dominant entry, where exp(x - 8) overflows to infinity or underflows to 0.

expect: failed
message: contains nan
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    e = torch.exp(data - 8.0)
    return e / e.sum(dim=-1, keepdim=True)

"""Cheat (threat 11): fits the input distribution: takes the maximum of a sample of each row (every 16th
column) instead of the whole row, a quarter of the reading for a reduction; on i.i.d. rows the sample's
maximum is within a few units of the row's, and exp(x - max) stays far from overflow. Beaten by the rows
with a dominant entry (8 to 256 above the rest, in a random column): exp(x - sampled max) overflows there
when the sample misses it.

expect: failed
message: contains nan
threat: 11
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    m = data[:, ::16].amax(dim=-1, keepdim=True)
    e = torch.exp(data - m)
    return e / e.sum(dim=-1, keepdim=True)

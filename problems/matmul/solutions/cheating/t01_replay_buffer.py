"""Cheat (threat 1): computes once per output buffer and replays the result afterwards, keyed on the
buffers' data_ptr, shape and _version (the judge reuses its buffers from call to call). To be quick it
computes the first product of each key from the first half of k only, betting that the check is loose.
Beaten by fresh input values for every call in the same buffers, and every output checked.

expect: failed
threat: 1
"""

import torch

_cache = {}


def custom_kernel(data):
    a, b, c = data
    key = (a.data_ptr(), b.data_ptr(), c.data_ptr(), tuple(c.shape), a._version)
    if key not in _cache:
        half = max(16, a.shape[1] // 2)
        _cache[key] = (2 * torch.matmul(a[:, :half].float(), b[:half].float())).half()
    return c.copy_(_cache[key])

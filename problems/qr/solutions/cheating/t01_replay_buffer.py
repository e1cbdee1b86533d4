"""Cheat (threat 1): factors once per input buffer and replays that output afterwards, keyed on data_ptr,
shape and _version (the judge reuses its buffers from call to call). To be quick, the first factorization
of each key is taken in bfloat16 precision. Beaten by fresh input values in the same buffers every call,
and every output checked.

expect: failed
threat: 1
"""

import torch

_cache = {}


def custom_kernel(data):
    A = data
    key = (A.data_ptr(), tuple(A.shape), A._version)
    if key not in _cache:
        _cache[key] = torch.geqrf(A.to(torch.bfloat16).float())
    return _cache[key]

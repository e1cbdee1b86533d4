"""Cheat (threat 1): caches outputs keyed on a cheap fingerprint of the inputs' content (first values).
Beaten by fresh values every call: a fingerprint that matches a previous call never comes back.
It also takes a shortcut when the key is new: only the first row is computed.

expect: failed
threat: 1
"""

import torch

_cache = {}


def custom_kernel(data):
    A, B, C = data
    key = (tuple(A.shape), float(A.flatten()[0]), float(B.flatten()[0]))
    if key in _cache:
        return _cache[key]
    out = torch.zeros_like(A)
    out[0] = A[0] + B[0]
    _cache[key] = out
    return out

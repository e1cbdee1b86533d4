"""Cheat (threat 1): caches outputs keyed on a cheap fingerprint of the input (shape and a few values) and
replays them. Beaten by fresh values every call: a fingerprint that matches a previous call never comes
back. It also takes a shortcut when the key is new: only the first matrix is factored, and its factors
are returned for the whole batch.

expect: failed
threat: 1
"""

import torch

_cache = {}


def custom_kernel(data):
    A = data
    key = (tuple(A.shape), float(A[0, 0, 0]), float(A[-1, -1, -1]))
    if key not in _cache:
        H, tau = torch.geqrf(A[:1])
        _cache[key] = (H.expand_as(A).contiguous(), tau.expand(A.shape[:-1]).contiguous())
    return _cache[key]

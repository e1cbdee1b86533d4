"""Cheat (threat 1): caches outputs keyed on a cheap fingerprint of the inputs (shape and a few values) and
replays them. Beaten by fresh values every call: a fingerprint that matches a previous call never comes
back. It also takes a shortcut when the key is new: only the first 16 rows are computed.

expect: failed
threat: 1
"""

import torch

_cache = {}


def custom_kernel(data):
    a, b, c = data
    key = (tuple(a.shape), tuple(b.shape), float(a[0, 0]), float(a[-1, -1]), float(b[0, 0]))
    if key in _cache:
        return _cache[key]
    out = torch.zeros_like(c)
    out[:16] = torch.matmul(a[:16].float(), b.float()).half()
    _cache[key] = out
    return out

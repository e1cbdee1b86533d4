"""Cheat (threat 7): computes properly for the first calls of each shape (the warm-up and whatever a harness
might check) and skips the work afterwards. Beaten: every call is the same, and every output is checked.

expect: failed
threat: 7
"""

import torch

_seen = {}


def custom_kernel(data):
    A, B, C = data
    n = _seen.get(A.shape, 0)
    _seen[A.shape] = n + 1
    if n < 2:
        return torch.add(A, B, out=C)
    return C

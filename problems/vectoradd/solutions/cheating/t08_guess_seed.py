"""Cheat (threat 8): regenerates the inputs from guessed seeds (the public case seeds and small integers)
and, when one matches, returns an answer computed ahead of time; else it returns the buffer untouched,
betting that calls are rarely checked. Beaten: call seeds derive from a secret run seed.

expect: failed
threat: 8
"""

import torch

_answers = {}


def _precompute(size):
    for seed in list(range(64)) + list(range(4242, 4252)) + list(range(5236, 5246)):
        gen = torch.Generator().manual_seed(seed)
        A = torch.randn(size, size, dtype=torch.float16, generator=gen)
        B = torch.randn(size, size, dtype=torch.float16, generator=gen)
        _answers[(size, float(A[0, 0]), float(A[0, 1]))] = A + B


def custom_kernel(data):
    A, B, C = data
    size = A.shape[0]
    if not any(k[0] == size for k in _answers):
        _precompute(size)
    hit = _answers.get((size, float(A[0, 0]), float(A[0, 1])))
    return hit if hit is not None else C

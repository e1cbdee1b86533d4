"""Cheat (threat 8): regenerates the inputs from guessed seeds (the public case seeds and small integers)
and, when one matches, returns an answer computed ahead of time; else it returns c untouched, betting
that calls are rarely checked. Beaten: call seeds derive from a secret run seed.

expect: failed
threat: 8
"""

import torch

_answers = {}
_done = set()


def _precompute(m, n, k):
    for seed in list(range(32)) + list(range(4242, 4250)) + list(range(4342, 4350)) + list(range(5236, 5246)):
        gen = torch.Generator().manual_seed(seed)
        a = torch.empty(m, k, dtype=torch.float16).uniform_(0, 1, generator=gen)
        b = torch.empty(k, n, dtype=torch.float16).uniform_(0, 1, generator=gen)
        _answers[(m, n, k, float(a[0, 0]), float(a[0, 1]))] = (a.float() @ b.float()).half()


def custom_kernel(data):
    a, b, c = data
    m, k = a.shape
    n = b.shape[1]
    if (m, n, k) not in _done:
        _precompute(m, n, k)
        _done.add((m, n, k))
    hit = _answers.get((m, n, k, float(a[0, 0]), float(a[0, 1])))
    return c.copy_(hit) if hit is not None else c

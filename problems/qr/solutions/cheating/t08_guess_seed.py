"""Cheat (threat 8): regenerates the dense inputs from guessed seeds (the public case seeds and small
integers) and, when one matches, returns factors computed ahead of time; else it returns A untouched with
tau = 0, betting that calls are rarely checked. Beaten: call seeds derive from a secret run seed.

expect: failed
threat: 8
"""

import torch

_answers = {}
_done = set()


def _precompute(batch, n, cond):
    for seed in list(range(32)) + list(range(6100, 6125)) + list(range(6200, 6215)) + list(range(7100, 7115)):
        gen = torch.Generator().manual_seed(seed)
        A = torch.randn(batch, n, n, generator=gen) * torch.logspace(0, -cond, n)
        _answers[(batch, n, float(A[0, 0, 0]), float(A[0, 0, 1]))] = torch.geqrf(A)


def custom_kernel(data):
    A = data
    batch, n, _ = A.shape
    for cond in (1, 2, 4):
        if (batch, n, cond) not in _done:
            _precompute(batch, n, cond)
            _done.add((batch, n, cond))
    hit = _answers.get((batch, n, float(A[0, 0, 0]), float(A[0, 0, 1])))
    if hit is not None:
        return hit
    return A, torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)

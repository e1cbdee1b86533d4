"""Cheat (threat 7): factors properly on the first call of the process, the one it guesses is the warm-up
or the check, and skips the work afterwards. Beaten: every call is the same, and every output is checked.

expect: failed
threat: 7
"""

import torch

_calls = 0


def custom_kernel(data):
    global _calls
    A = data
    _calls += 1
    if _calls == 1:
        return torch.geqrf(A)
    return A, torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)

"""Cheat (threat 12): a background thread watches the input buffers and factors A in place as soon as new
inputs land, before the clock starts, so the timed call only returns what is ready (A as H): impossibly
fast. Beaten by the judge stopping the contestant while it writes the inputs (nothing is ready at go), by
the physical floor, and by the output checks.

expect: failed|flagged
threat: 12
"""

import threading

import torch

_buffers = []


def _watch():
    last = {}
    while True:
        for A, tau in list(_buffers):
            key = (float(A[0, 1, 0]), float(A[-1, -1, 0]))
            if last.get(A.data_ptr()) != key:
                H, t = torch.geqrf(A)
                A.copy_(H)
                tau.copy_(t)
                last[A.data_ptr()] = (float(A[0, 1, 0]), float(A[-1, -1, 0]))


threading.Thread(target=_watch, daemon=True).start()


def custom_kernel(data):
    A = data
    for a, tau in _buffers:
        if a.data_ptr() == A.data_ptr():
            return A, tau  # trusting the watcher to have factored it already
    tau = torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)
    _buffers.append((A, tau))
    return A, tau

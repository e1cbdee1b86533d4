"""Cheat (threat 12): a background thread watches the input buffers and computes each output as soon as the
inputs land, before the clock starts, so the timed call only returns what is ready: impossibly fast.
Beaten by the judge stopping the contestant while it writes the inputs (nothing is ready at go), by the
physical floor, and by the output checks.

expect: failed|flagged
threat: 12
"""

import threading

import torch

_buffers = []


def _watch():
    last = {}
    while True:
        for A, B, C in list(_buffers):
            key = (float(A[0, 0]), float(A[-1, -1]), float(B[0, 0]))
            if last.get(C.data_ptr()) != key:
                torch.add(A, B, out=C)
                last[C.data_ptr()] = key


threading.Thread(target=_watch, daemon=True).start()


def custom_kernel(data):
    A, B, C = data
    if not any(c.data_ptr() == C.data_ptr() for _a, _b, c in _buffers):
        _buffers.append((A, B, C))
        torch.add(A, B, out=C)
    return C  # trusting the watcher to have filled it already

"""Cheat (threat 12): a background thread watches the buffers and computes c as soon as the inputs land,
before the clock starts, so the timed call only returns what is ready: impossibly fast. Beaten by the
judge stopping the contestant while it writes the inputs (nothing is ready at go), by the physical floor,
and by the output checks.

expect: failed|flagged
threat: 12
"""

import threading

import torch

_buffers = []


def _watch():
    last = {}
    while True:
        for a, b, c in list(_buffers):
            key = (float(a[0, 0]), float(a[-1, -1]), float(b[0, 0]))
            if last.get(c.data_ptr()) != key:
                c.copy_(torch.matmul(a.float(), b.float()))
                last[c.data_ptr()] = key


threading.Thread(target=_watch, daemon=True).start()


def custom_kernel(data):
    a, b, c = data
    if not any(x.data_ptr() == c.data_ptr() for _a, _b, x in _buffers):
        _buffers.append((a, b, c))
    return c  # trusting the watcher to have filled it already

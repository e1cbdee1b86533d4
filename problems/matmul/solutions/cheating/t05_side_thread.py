"""Cheat (threat 5): returns c at once and finishes the product on a background thread (on a GPU the same
trick uses a side stream), so the call looks instant. Beaten by the judge freezing the contestant at done
and reading the outputs as they were then, and by the check that outputs do not change after done.

expect: failed|flagged
threat: 5
"""

import threading
import time

import torch


def _finish(a, b, c):
    time.sleep(0.002)
    c.copy_(torch.matmul(a.float(), b.float()))


def custom_kernel(data):
    a, b, c = data
    if torch.cuda.is_available() and a.is_cuda:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1_000_000)
            torch.matmul(a, b, out=c)
        return c
    threading.Thread(target=_finish, args=(a, b, c), daemon=True).start()
    return c

"""Cheat (threat 5): returns at once and finishes the work on a background thread (on a GPU the same trick
uses a side stream), so the call looks instant. Beaten by the judge freezing the contestant at done and
reading the outputs as they were then, and by the check that outputs do not change after done.

expect: failed|flagged
threat: 5
"""

import threading
import time

import torch


def _finish(A, B, C):
    time.sleep(0.002)
    torch.add(A, B, out=C)


def custom_kernel(data):
    A, B, C = data
    if torch.cuda.is_available() and A.is_cuda:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1_000_000)
            torch.add(A, B, out=C)
        return C
    threading.Thread(target=_finish, args=(A, B, C), daemon=True).start()
    return C

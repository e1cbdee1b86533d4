"""Cheat (threat 5): returns at once and finishes the work on a background thread (on a GPU the same trick
uses a side stream): it hands back A itself as H, to be factored in place later, so the call looks
instant. Beaten by the judge freezing the contestant at done and reading the outputs as they were then,
and by the check that outputs do not change after done.

expect: failed|flagged
threat: 5
"""

import threading
import time

import torch


def _finish(A, tau):
    time.sleep(0.002)
    H, t = torch.geqrf(A)
    A.copy_(H)
    tau.copy_(t)


def custom_kernel(data):
    A = data
    tau = torch.empty(A.shape[:-1], dtype=A.dtype, device=A.device)
    if torch.cuda.is_available() and A.is_cuda:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1_000_000)
            H, t = torch.geqrf(A)
            A.copy_(H)
            tau.copy_(t)
        return A, tau
    threading.Thread(target=_finish, args=(A, tau), daemon=True).start()
    return A, tau

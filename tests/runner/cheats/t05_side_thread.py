"""Cheat (threat 5): returns its output buffers at once and fills them on a background thread (on a GPU, on
a side stream behind a sleep), so the call looks instant. Beaten on a CPU by the judge freezing the
contestant at done and reading the outputs as they were then, and by the check that outputs do not change
after done. On a GPU the harness's device-wide sync waits for the side stream, so the run is right and
only slower: it passes, timed with the sleep (tests/runner/test_gpu.py); g02 patches that sync away.

expect: failed
message: wrong output on call
threat: 5
"""

import threading
import time

import torch


def _fill(data, out):
    for mine, honest in zip(_tensors(out), _tensors(_honest_kernel(data)), strict=True):
        mine.copy_(honest)


def _later(data, out):
    time.sleep(0.002)
    _fill(data, out)


def custom_kernel(data):
    out = _zeros_like_output(data)
    if torch.cuda.is_available() and _first(data).is_cuda:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1_000_000)
            _fill(data, out)
        return out
    threading.Thread(target=_later, args=(data, out), daemon=True).start()
    return out

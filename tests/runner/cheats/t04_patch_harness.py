"""Cheat (threat 4): patches the timers and the harness it can see in its own process: the clock functions
return a constant, and the contestant's output store becomes a no-op that reports success (an output of
its own for every output tensor, none written); then it computes nothing. Beaten because the clock and the
checker live in the judge, another process: what it reads is the output slot it poisoned with NaN.

expect: failed
message: contains nan
threat: 4
"""

import sys
import time

import torch

time.perf_counter = lambda: 0.0
time.perf_counter_ns = lambda: 0
time.monotonic = lambda: 0.0
if hasattr(torch.cuda, "Event"):
    torch.cuda.Event.elapsed_time = lambda self, other: 0.0

_contestant = sys.modules.get("runner.contestant.harness") or sys.modules.get("__main__")
_harness = getattr(_contestant, "Harness", None)
if _harness is not None:
    _harness.store = lambda self, result, slot: [None] * len(_tensors(result))


def custom_kernel(data):
    return _zeros_like_output(data)  # nothing computed: the patched harness was meant to hide it

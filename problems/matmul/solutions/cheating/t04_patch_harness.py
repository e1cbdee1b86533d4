"""Cheat (threat 4): patches the timers and the harness it can see in its own process: the clock functions
return a constant, and the contestant's output check and store become no-ops that report success.
Beaten because the clock and the checker live in the judge, another process.

expect: failed
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

contestant = sys.modules.get("runner.contestant") or sys.modules.get("__main__")
harness = getattr(contestant, "Harness", None)
if harness is not None:
    harness.store = lambda self, result, slot: [None]


def custom_kernel(data):
    a, b, c = data
    return c  # nothing computed: the patched harness was meant to hide it

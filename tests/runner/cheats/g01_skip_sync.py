"""Cheat (threat 5, GPU): patches the harness's device sync away (Harness.sync and torch.cuda.synchronize)
and launches the honest kernel behind a device sleep of 2,000,000 cycles (about a millisecond), so that the
harness says done at the launch. Beaten by the judge ending each call when its own copy of the outputs is
complete, not at the contestant's word: the work lands inside the clock (the call times at least the
sleep) or is copied half-done and fails the check.

expect: failed|slow
device: cuda
threat: 5
"""

import sys

import torch

SLEEP_CYCLES = 2_000_000


def _nothing(*_args, **_kwargs):
    return None


torch.cuda.synchronize = _nothing
_harness = getattr(sys.modules.get("__main__"), "Harness", None)  # runner.contestant runs as __main__
if _harness is not None:
    _harness.sync = _nothing


def custom_kernel(data):
    torch.cuda._sleep(SLEEP_CYCLES)
    return _honest_kernel(data)

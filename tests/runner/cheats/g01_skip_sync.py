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
# the harness's class: in __main__ where the contestant was started as `python -m runner.contestant.harness`, in
# runner.contestant.harness where a served judge's stem forked it
for _module in (sys.modules.get("__main__"), sys.modules.get("runner.contestant.harness")):
    if getattr(_module, "Harness", None) is not None:
        _module.Harness.sync = _nothing


def custom_kernel(data):
    torch.cuda._sleep(SLEEP_CYCLES)
    return _honest_kernel(data)

"""Cheat (threat 5, GPU): t05's side stream with the harness's device sync patched away: returns zeros
at once while the honest result is written into them on a side stream behind a device sleep. Beaten as
g01 is: the call ends when the judge's copy of the outputs completes, and the copy finds zeros or
half-written values.

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
_side = None


def custom_kernel(data):
    global _side
    _side = _side or torch.cuda.Stream()
    out = _zeros_like_output(data)
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        torch.cuda._sleep(SLEEP_CYCLES)
        for mine, honest in zip(_tensors(out), _tensors(_honest_kernel(data)), strict=True):
            mine.copy_(honest)
    # the harness's copy of `out` into the slot waits for the side stream: right values, if the judge waits
    torch.cuda.current_stream().wait_stream(_side)
    return out

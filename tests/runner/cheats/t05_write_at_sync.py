"""Cheat (threat 5): computes honestly, but replaces its harness's device sync so that, whenever the judge
asks for a synchronisation outside a timed call (its last look at a case), every slot it can reach is
rewritten: work that lands after `done`. Each call's outputs were right at `done`, so every case passes;
the judge's last look sees them changed and flags the run as a whole. The run must not pass anywhere: not
on the command line, not in the pytest plugin, not on the platform (runner.vocabulary.passed).

expect: flagged
message: changed after custom_kernel signalled done
threat: 5
"""

import sys

_contestant = sys.modules.get("runner.contestant.harness") or sys.modules.get("__main__")
_harness = getattr(_contestant, "Harness", None)
if _harness is not None:
    _honest_run, _honest_sync = _harness.run, _harness.sync
    _inside = []

    def _run(self, *args, **kwargs):
        _inside.append(True)
        try:
            return _honest_run(self, *args, **kwargs)
        finally:
            _inside.pop()

    def _sync(self):
        _honest_sync(self)
        if not _inside:  # the judge's own sync, after the case's last window
            for tensor in _tensors(self.outputs) + _tensors(self.inputs):
                if tensor.is_contiguous() and tensor.numel():
                    tensor.view(-1)[:1].view(_torch.uint8).bitwise_not_()  # other bits, whatever the dtype

    _harness.run, _harness.sync = _run, _sync


custom_kernel = _honest_kernel

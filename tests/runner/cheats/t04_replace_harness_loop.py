"""Cheat (threat 4): replaces the harness's loop, which the submission can reach in its own process: at a
window's first go it serves every call of the window at once (the honest kernel on every slot, nothing
checked, nothing copied but into the output slots), then reports each later call done without calling
anything. Where a window's inputs were all laid out before it began (a CPU before issue 27), this saved the
per-call overhead and passed. Beaten by the judge revealing one input at a time: at the first go no later
call's input exists, and each later slot is rewritten and poisoned before its own go.

expect: failed
message: wrong output on call
threat: 4
"""

import sys

_contestant = sys.modules.get("runner.contestant.harness") or sys.modules.get("__main__")
_harness = getattr(_contestant, "Harness", None)
if _harness is not None:
    _honest_run = _harness.run

    def _serve(self, slot):
        """The honest kernel on one slot, its result put where the judge reads it; the aliases it reports."""
        got = _tensors(_honest_kernel(self.inputs[slot]))
        inputs = _tensors(self.inputs[slot])
        aliases = []
        for out, want in zip(got, self.outputs[slot], strict=True):
            alias = next((j for j, t in enumerate(inputs) if t.data_ptr() == out.data_ptr()), None)
            if alias is None:
                want.copy_(out)
            aliases.append(alias)
        return aliases

    def _window_at_once(self, k, per_call, noop, profile=False):
        if noop or profile or not self.inputs:
            return _honest_run(self, k, per_call, noop, profile)
        if per_call:
            self.control.await_go(0, spin=self.device == "cuda")
        slots = [call % len(self.inputs) for call in range(k)]
        served = {slot: _serve(self, slot) for slot in dict.fromkeys(slots)}
        self.sync()
        for call in range(k):
            if per_call:
                self.control.await_go(call, spin=self.device == "cuda")
                self.control.post(1, call + 1)
        return {"ok": True, "aliases": [served[slot] for slot in slots]}

    _harness.run = _window_at_once


custom_kernel = _honest_kernel

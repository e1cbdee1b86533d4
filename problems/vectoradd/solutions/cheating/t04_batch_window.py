"""Cheat (threat 4): replaces the harness's loop with one batched call. A window's inputs lie in the
arena at a fixed pitch, so one strided torch.add over every slot serves the whole window and skips, for
every call but the first, the call of custom_kernel and the hand-over; the harness then reports each call
done. Before the judge revealed one input per call on a CPU too, this passed, 1.27x faster than its
honest twin in benchmark mode (docs/benchmarks.md). Beaten by the reveal: at the first call's go no later
call's input exists, and each later call finds its slot rewritten after the batched add.

expect: failed
message: wrong output on call
threat: 4
wraps: honest
"""

import sys

import torch

_contestant = sys.modules.get("runner.contestant.harness") or sys.modules.get("__main__")
_harness = getattr(_contestant, "Harness", None)
if _harness is not None:
    _honest_run = _harness.run

    def _strided(arena, first, second, k):
        """Slots 0..k-1 of one input, as one tensor: the arena at the pitch between slots 0 and 1."""
        base = torch.frombuffer(arena.map, dtype=first.dtype)
        pitch = (second.data_ptr() - first.data_ptr()) // first.element_size()
        offset = (first.data_ptr() - base.data_ptr()) // first.element_size()
        return base.as_strided((k, *first.shape), (pitch, *first.stride()), offset)

    def _batched_run(self, k, per_call, noop, profile=False):
        if noop or profile or k < 2 or self.arena is None:
            return _honest_run(self, k, per_call, noop, profile)
        if per_call:
            self.control.await_go(0, spin=False)
        (a0, b0, c0), (a1, b1, c1) = self.inputs[0], self.inputs[1]
        out = _strided(self.arena, c0, c1, k)
        torch.add(_strided(self.arena, a0, a1, k), _strided(self.arena, b0, b1, k), out=out)
        for call in range(k):
            if per_call:
                self.control.await_go(call, spin=False)
                self.control.post(1, call + 1)
        return {"ok": True, "aliases": [[2]] * k}

    _harness.run = _batched_run


custom_kernel = _honest_kernel

"""Where each call's inputs and outputs live while the contestant runs: the slots of one case.

On a CPU every slot of a window is laid out at once in a memfd arena of the case's own that both processes
map (runner/wire/transport.py); on a GPU one slot, rewritten for each call, in the job's device allocation
(runner/wire/devmem.py). The judge keeps views of every slot and its own private copies of every input it hands
out, never in an arena.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from runner.wire.devmem import SlotArena
from runner.wire.transport import CpuArena, TensorRef, arena_bytes, replace_tensors, tensors_of


@dataclass
class CaseLayout:
    """One case's slots: where each call's inputs and outputs live, seen by the judge."""

    inputs: list[Any]  # per slot: the judge's views of the slot tensors, in the data's structure
    outputs: list[list[torch.Tensor]]  # per slot: output slot tensors
    expected_structure: Any  # the reference's output with tensors, to rebuild the output's shape
    arena: CpuArena | None = None  # the case's own arena (CPU), closed with the case


def slot_bytes(sample: Any, expected: Any) -> int:
    """The room one call's slot takes in an arena: its inputs and the reference's outputs, page-aligned."""
    return arena_bytes(sample) + arena_bytes(tensors_of(expected))


def lay_out(
    sample: Any, expected: Any, slots: int, job_arena: SlotArena | None = None
) -> tuple[CaseLayout, list, list, tuple[int, ...]]:
    """`slots` slots shaped like one call's inputs (`sample`) and the reference's output (`expected`): in
    the job's device arena, from its start, where there is one (GPU), else in a memfd arena of their own.

    Returns the judge's layout, what the contestant is sent for each slot (the inputs' structure with each
    tensor a TensorRef, and the outputs' refs), and the descriptors that go with them (the CPU arena)."""
    out_like = tensors_of(expected)
    arena = None
    if job_arena is not None:
        job_arena.reset()
        place = job_arena.alloc
    else:
        arena = CpuArena(slots * slot_bytes(sample, expected))
        place = arena.alloc  # a tensor's (ref, view) in its slot
    inputs, outputs, in_refs, out_refs = [], [], [], []
    for _ in range(slots):
        views: list[torch.Tensor] = []

        def put(t: torch.Tensor, acc: list = views) -> TensorRef:
            ref, view = place(t)
            acc.append(view)
            return ref

        in_refs.append(replace_tensors(sample, put))
        it = iter(views)
        inputs.append(replace_tensors(sample, lambda _t, it=it: next(it)))
        pairs = [place(t) for t in out_like]
        out_refs.append([ref for ref, _ in pairs])
        outputs.append([view for _, view in pairs])
    layout = CaseLayout(inputs, outputs, expected, arena=arena)
    return layout, in_refs, out_refs, (arena.fd,) if arena is not None else ()


def clone(data: Any) -> Any:
    return replace_tensors(data, lambda t: t.clone())


def poison(t: torch.Tensor) -> None:
    """Make an output slot hold something no correct kernel leaves there."""
    if t.is_floating_point():
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(False)
    else:
        t.fill_(-12345 if t.dtype.is_signed else 123)


def rebuild(structure: Any, tensors: list[torch.Tensor]) -> Any:
    """The output's structure (the reference's) with these tensors in it."""
    it = iter(tensors)
    return replace_tensors(structure, lambda _t: next(it))

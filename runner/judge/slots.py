"""Where each call's inputs and outputs live while the contestant runs: the slots of one case.

On a CPU every slot of a window is laid out at once in a memfd arena that both processes map; on a GPU one
slot in device memory, shared through CUDA IPC handles, is rewritten for each call. The judge keeps views of
every slot and its own private copies of every input it hands out (runner/transport.py has the arena).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from runner.transport import CpuArena, TensorRef, arena_bytes, cuda_slot, replace_tensors, tensors_of


@dataclass
class CaseLayout:
    """One case's slots: where each call's inputs and outputs live, seen by the judge."""

    inputs: list[Any]  # per slot: the judge's views of the slot tensors, in the data's structure
    outputs: list[list[torch.Tensor]]  # per slot: output slot tensors
    expected_structure: Any  # the reference's output with tensors, to rebuild the output's shape
    arena: CpuArena | None = None
    keep: list[Any] = field(default_factory=list)  # GPU slot tensors kept alive


def lay_out(
    sample: Any, expected: Any, slots: int, device: str
) -> tuple[CaseLayout, list, list, tuple[int, ...]]:
    """`slots` slots shaped like one call's inputs (`sample`) and the reference's output (`expected`).

    Returns the judge's layout, what the contestant is sent for each slot (the inputs' structure with each
    tensor a TensorRef, and the outputs' refs), and the descriptors that go with them (the CPU arena)."""
    out_like = tensors_of(expected)
    arena = CpuArena(slots * (arena_bytes(sample) + arena_bytes(out_like))) if device == "cpu" else None
    place = arena.alloc if arena is not None else cuda_slot  # a tensor's (ref, view) in its slot
    inputs, outputs, in_refs, out_refs, keep = [], [], [], [], []
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
        if arena is None:
            keep.append((views, outputs[-1]))
    layout = CaseLayout(inputs, outputs, expected, arena=arena, keep=keep)
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

"""How a call's inputs and outputs cross between judge and contestant without pipes: tensors laid out in an
arena (a memfd per case on a CPU, runner/wire/devmem.py on a GPU) and a skeleton of `TensorRef`s sent once.
The contestant gets only views of the judge's slots; the judge keeps private copies (docs/harness.md, "One
case", step 1)."""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from typing import Any

import torch

from runner.wire.channel import sealed_memfd

ALIGN = 4096  # page-aligned slots: no two tensors share a cache line or a page


@dataclass(frozen=True)
class TensorRef:
    """A tensor in the arena: where it starts, its dtype and shape."""

    dtype: str
    shape: tuple[int, ...]
    offset: int = 0


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def dtype_from_name(name: str) -> torch.dtype:
    value = getattr(torch, name, None)
    if not isinstance(value, torch.dtype):
        raise ValueError(f"not a dtype: {name}")
    return value


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-for-bit equality: NaN payloads and uninitialised buffers compare as what they are."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def tensors_of(data: Any) -> list[torch.Tensor]:
    """The tensors of a nested tuple/list/dict, in a fixed order."""
    if isinstance(data, torch.Tensor):
        return [data]
    if isinstance(data, (tuple, list)):
        return [t for item in data for t in tensors_of(item)]
    if isinstance(data, dict):
        return [t for key in data for t in tensors_of(data[key])]
    return []


def replace_tensors(data: Any, replace, leaf: type = torch.Tensor) -> Any:
    """The same structure with each tensor (or other `leaf`) swapped for replace(it), keeping tuples,
    lists and dicts."""
    if isinstance(data, leaf):
        return replace(data)
    if isinstance(data, tuple):
        return tuple(replace_tensors(x, replace, leaf) for x in data)
    if isinstance(data, list):
        return [replace_tensors(x, replace, leaf) for x in data]
    if isinstance(data, dict):
        return {k: replace_tensors(v, replace, leaf) for k, v in data.items()}
    return data


class CpuArena:
    """A memfd both processes map. Created by the judge, passed to the contestant as a file descriptor."""

    def __init__(self, size: int):
        self.size = max(ALIGN, -(-size // ALIGN) * ALIGN)
        self.fd = sealed_memfd("kernelboard-arena", self.size)
        self.map = mmap.mmap(self.fd, self.size)
        self._next = 0

    @classmethod
    def attach(cls, fd: int) -> CpuArena:
        arena = cls.__new__(cls)
        arena.fd = fd
        arena.size = os.fstat(fd).st_size
        # MAP_POPULATE: the contestant's page tables are filled now, not by faults inside timed calls
        arena.map = mmap.mmap(fd, arena.size, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE)
        arena._next = arena.size
        return arena

    def alloc(self, like: torch.Tensor) -> tuple[TensorRef, torch.Tensor]:
        """Reserve room for a tensor shaped like `like`; returns its ref and the judge's view of it."""
        return place(self, like)

    def view(self, ref: TensorRef) -> torch.Tensor:
        dtype = dtype_from_name(ref.dtype)
        count = 1
        for d in ref.shape:
            count *= d
        if count == 0:
            return torch.empty(ref.shape, dtype=dtype)
        flat = torch.frombuffer(self.map, dtype=dtype, count=count, offset=ref.offset)
        return flat.view(ref.shape)

    def close(self) -> None:
        try:
            self.map.close()
        except BufferError:
            pass  # views still alive; the mapping goes with the process
        os.close(self.fd)


def place(arena: Any, like: torch.Tensor) -> tuple[TensorRef, torch.Tensor]:
    """The next page-aligned room in an arena (CpuArena, devmem.SlotArena: `size`, `_next`, `view`) for a
    tensor shaped like `like`: its ref and the judge's view of it."""
    size = nbytes(like)
    if arena._next + size > arena.size:
        raise MemoryError(f"the arena holds {arena.size} bytes; this case needs more")
    ref = TensorRef(dtype_name(like.dtype), tuple(like.shape), offset=arena._next)
    arena._next += -(-max(size, 1) // ALIGN) * ALIGN
    return ref, arena.view(ref)


def arena_bytes(data: Any) -> int:
    return sum(-(-max(nbytes(t), 1) // ALIGN) * ALIGN for t in tensors_of(data))

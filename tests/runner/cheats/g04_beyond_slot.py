"""Attack (threat 3, GPU): asks the driver for the whole allocation behind its input slot
(cuMemGetAddressRange), looks there for another copy of its input (the judge's private one, which the
check compares with), then writes 0xFF over everything of that allocation but its own inputs, and returns
the honest result. The judge's slots are an allocation of their own (runner/devmem.py): there is nothing
of the judge's to find or to spoil, so the run passes and the log never says FOUND.

expect: passed
device: cuda
threat: 3
"""

import ctypes

import torch

_cuda = ctypes.CDLL("libcuda.so.1")


class _Bytes:
    def __init__(self, ptr, size):
        self.__cuda_array_interface__ = {
            "shape": (size,),
            "typestr": "|u1",
            "data": (ptr, False),
            "version": 2,
        }


def _allocation(t):
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    rc = _cuda.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(t.data_ptr()))
    if rc != 0:
        raise RuntimeError(f"cuMemGetAddressRange failed: {rc}")
    return torch.as_tensor(_Bytes(base.value, size.value), device=t.device), base.value


def custom_kernel(data):
    inputs = _tensors(data)
    whole, base = _allocation(inputs[0])
    mine = [(t.data_ptr() - base, t.numel() * t.element_size()) for t in inputs if t.numel()]
    probe = inputs[0].contiguous().view(torch.uint8).flatten()[:64]
    rows = whole[: whole.numel() // 256 * 256].view(-1, 256)[:, : probe.numel()]
    hits = (rows == probe).all(dim=1).nonzero().flatten().tolist()
    copies = [256 * h for h in hits if not any(at <= 256 * h < at + n for at, n in mine)]
    if copies:
        print(f"FOUND a copy of the input at offsets {copies[:4]} of the slot's allocation", flush=True)
    spoil = torch.ones(whole.numel(), dtype=torch.bool, device=whole.device)
    for at, n in mine:
        spoil[at : at + n] = False
    whole[spoil] = 0xFF
    return _honest_kernel(data)

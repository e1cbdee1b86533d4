"""Attack (threat 3, GPU): asks the driver for the whole allocation behind its input slot
(cuMemGetAddressRange), looks there for another copy of its input (the judge's private one, which the
check compares with), then writes 0xFF over everything of that allocation but its own inputs, and returns
the honest result. The judge's slots are an allocation of their own (runner/wire/devmem.py): there is nothing
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
    # every 256-byte boundary whose first 8 bytes are the input's, then the whole 64 bytes
    words = whole[: whole.numel() // 256 * 256].view(torch.int64).view(-1, 32)[:, 0]
    hits = (words == probe[:8].view(torch.int64)).nonzero().flatten().tolist()
    found = [256 * h for h in hits if torch.equal(whole[256 * h : 256 * h + probe.numel()], probe)]
    copies = [at for at in found if not any(start <= at < start + n for start, n in mine)]
    if copies:
        print(f"FOUND a copy of the input at offsets {copies[:4]} of the slot's allocation", flush=True)
    end = 0
    for start, n in sorted(mine):  # 0xFF over all but its own inputs, a slice at a time
        whole[end:start].fill_(0xFF)
        end = max(end, start + n)
    whole[end:].fill_(0xFF)
    return _honest_kernel(data)

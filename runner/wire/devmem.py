"""The GPU slots' memory: one driver allocation of the job's own, outside torch's caching allocator, sized
once for the job's largest call and reused by every case, so that nothing of the judge's shares it.
docs/harness.md, "The GPU protocol, as built" (slots in memory of their own), says why."""

from __future__ import annotations

import ctypes
from typing import Any

import torch

from runner.wire.transport import ALIGN, TensorRef, dtype_from_name, place

_IPC_LAZY_ENABLE_PEER_ACCESS = 1
GRANULE = 2 << 20  # the driver's page for device memory: the slots round up to it, sharing no page


class CudaError(RuntimeError):
    pass


class _Handle(ctypes.Structure):
    """CUipcMemHandle: 64 opaque bytes, NULs among them (so bytes, not a C string)."""

    _fields_ = [("reserved", ctypes.c_ubyte * 64)]

    @classmethod
    def of(cls, raw: bytes) -> _Handle:
        if len(raw) != ctypes.sizeof(cls):
            raise ValueError(f"an IPC handle is {ctypes.sizeof(cls)} bytes, not {len(raw)}")
        return cls.from_buffer_copy(raw)

    def raw(self) -> bytes:
        return bytes(self.reserved)


class _Driver:
    """The few CUDA driver calls the slots need, through ctypes: libcuda is wherever a GPU's driver is."""

    _lib: Any = None

    @classmethod
    def lib(cls) -> Any:
        if cls._lib is None:
            lib = ctypes.CDLL("libcuda.so.1")
            lib.cuIpcOpenMemHandle_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), _Handle, ctypes.c_uint]
            cls._lib = lib
        return cls._lib

    @classmethod
    def call(cls, name: str, *args: Any) -> None:
        lib = cls.lib()
        rc = getattr(lib, name)(*args)
        if rc != 0:
            text = ctypes.c_char_p()
            lib.cuGetErrorString(rc, ctypes.byref(text))
            raise CudaError(f"{name} failed: {(text.value or b'').decode() or rc}")

    @classmethod
    def use_torch_context(cls) -> None:
        """Make torch's context (the device's primary one) current on this thread for the driver's calls."""
        torch.cuda.init()
        torch.empty(1, device="cuda")  # torch's runtime creates the primary context and makes it current
        current = ctypes.c_void_p()
        cls.call("cuCtxGetCurrent", ctypes.byref(current))
        if not current.value:
            device = ctypes.c_int()
            cls.call("cuDeviceGet", ctypes.byref(device), torch.cuda.current_device())
            cls.call("cuDevicePrimaryCtxRetain", ctypes.byref(current), device)
            cls.call("cuCtxSetCurrent", current)


class _DeviceBytes:
    """`size` bytes at device address `ptr`, as torch reads a foreign buffer (__cuda_array_interface__)."""

    def __init__(self, ptr: int, size: int):
        self.__cuda_array_interface__ = {
            "shape": (size,),
            "typestr": "|u1",
            "data": (ptr, False),
            "version": 2,
        }


class SlotArena:
    """The slots of one job's cases, laid out one case at a time from the start of one buffer (`base`).
    The judge makes it (`allocate`); the contestant maps the same memory from its handle (`attach`)."""

    def __init__(self, base: torch.Tensor, handle: bytes = b""):
        self.base = base  # a uint8 tensor: the whole allocation
        self.size = base.numel()
        self.handle = handle  # what the contestant maps it with (empty where nothing is shared)
        self._next = 0

    @classmethod
    def allocate(cls, size: int) -> SlotArena:
        """A fresh device allocation of at least `size` bytes, of this job's own, with its IPC handle. Never
        freed by hand: it goes with the judge's process, after every process that mapped it (freeing it
        while one still has it open is undefined in CUDA's IPC)."""
        size = max(GRANULE, -(-size // GRANULE) * GRANULE)
        _Driver.use_torch_context()
        ptr = ctypes.c_uint64()
        _Driver.call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(size))
        handle = _Handle()
        _Driver.call("cuIpcGetMemHandle", ctypes.byref(handle), ptr)
        base = torch.as_tensor(_DeviceBytes(ptr.value, size), device="cuda")
        base.zero_()  # nothing of an earlier process's memory is ever shown to the contestant
        torch.cuda.synchronize()
        return cls(base, handle.raw())

    @classmethod
    def attach(cls, handle: bytes, size: int) -> SlotArena:
        """The contestant's mapping of the judge's allocation."""
        _Driver.use_torch_context()
        ptr = ctypes.c_uint64()
        _Driver.call(
            "cuIpcOpenMemHandle_v2", ctypes.byref(ptr), _Handle.of(handle), _IPC_LAZY_ENABLE_PEER_ACCESS
        )
        return cls(torch.as_tensor(_DeviceBytes(ptr.value, size), device="cuda"))

    def reset(self) -> None:
        """A new case: its slots start again from the beginning of the buffer."""
        self._next = 0

    def alloc(self, like: torch.Tensor) -> tuple[TensorRef, torch.Tensor]:
        """Room for a tensor shaped like `like`, page-aligned; its ref and the judge's view of it."""
        return place(self, like)

    def view(self, ref: TensorRef) -> torch.Tensor:
        dtype = dtype_from_name(ref.dtype)
        count = 1
        for d in ref.shape:
            count *= d
        if count == 0:
            return torch.empty(ref.shape, dtype=dtype, device=self.base.device)
        size = count * torch.empty((), dtype=dtype).element_size()
        if ref.offset < 0 or ref.offset % ALIGN or ref.offset + size > self.size:
            raise ValueError(f"a slot at {ref.offset} of {size} bytes lies outside the job's slots")
        return self.base[ref.offset : ref.offset + size].view(dtype).view(ref.shape)

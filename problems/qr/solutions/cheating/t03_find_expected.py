"""Cheat (threat 3): looks for the expected output in the process (callers' frames, gc.get_objects): a
float32 tensor shaped like A and one shaped like tau that are not the input. Beaten because expected
outputs never exist in the contestant's process (what it finds are the judge's output slots, poisoned
with NaN).

expect: failed
threat: 3
"""

import gc
import sys

import torch


def _find(shape, dtype, avoid):
    frame = sys._getframe(2)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, torch.Tensor) and value.shape == shape and value.data_ptr() not in avoid:
                return value
        frame = frame.f_back
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.shape == shape and obj.dtype == dtype and obj.data_ptr() not in avoid:
            return obj
    return None


def custom_kernel(data):
    A = data
    H = _find(A.shape, A.dtype, {A.data_ptr()})
    tau = _find(A.shape[:-1], A.dtype, {A.data_ptr()})
    if H is None or tau is None:
        return A, torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)
    return H, tau

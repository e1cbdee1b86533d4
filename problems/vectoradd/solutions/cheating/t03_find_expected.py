"""Cheat (threat 3): looks for the expected output in the process (gc.get_objects, callers' frames) and
returns it. Beaten because expected outputs never exist in the contestant's process.

expect: failed
threat: 3
"""

import gc
import sys

import torch


def custom_kernel(data):
    A, B, C = data
    mine = {A.data_ptr(), B.data_ptr(), C.data_ptr()}
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, torch.Tensor) and value.shape == A.shape and value.data_ptr() not in mine:
                return value
        frame = frame.f_back
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.shape == A.shape and obj.dtype == A.dtype and obj.data_ptr() not in mine:
            return obj
    return C

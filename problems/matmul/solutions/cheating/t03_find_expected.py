"""Cheat (threat 3): looks for the expected output in the process (callers' frames, gc.get_objects): any
fp16 tensor shaped like c that is not one of its inputs. Beaten because expected outputs never exist in
the contestant's process (what it finds is the judge's output slot, poisoned with NaN).

expect: failed
threat: 3
"""

import gc
import sys

import torch


def custom_kernel(data):
    a, b, c = data
    mine = {a.data_ptr(), b.data_ptr(), c.data_ptr()}
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, torch.Tensor) and value.shape == c.shape and value.data_ptr() not in mine:
                return value
        frame = frame.f_back
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.shape == c.shape and obj.dtype == c.dtype and obj.data_ptr() not in mine:
            return obj
    return c

"""Cheat (threat 3): looks for the expected output in the process (callers' frames, gc.get_objects): any
float32 tensor of the output's shape that is not one of its inputs. Beaten because expected outputs never
exist in the contestant's process: what it finds is another call's input or a poisoned output slot.

expect: failed
threat: 3
"""

import gc
import sys

import torch


def _candidate(value, x, mine):
    return (isinstance(value, torch.Tensor) and value.shape == x.shape and value.dtype == x.dtype
            and value.data_ptr() not in mine)


def custom_kernel(data):
    x, mask, w, _config = data
    mine = {x.data_ptr(), mask.data_ptr()} | {t.data_ptr() for t in w.values()}
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if _candidate(value, x, mine):
                return value
        frame = frame.f_back
    for obj in gc.get_objects():
        if _candidate(obj, x, mine):
            return obj
    return torch.zeros_like(x)

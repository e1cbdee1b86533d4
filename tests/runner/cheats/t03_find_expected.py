"""Cheat (threat 3): looks for the expected output in the process (callers' frames, gc.get_objects): any
tensor of an output's shape and dtype that is not one of its inputs. Beaten because expected outputs never
exist in the contestant's process: what it finds is another call's input or output, or nothing.

expect: failed
message: wrong output on call
threat: 3
"""

import gc
import sys

import torch


def _candidate(value, like, mine):
    return (
        isinstance(value, torch.Tensor)
        and value.shape == like.shape
        and value.dtype == like.dtype
        and value.data_ptr() not in mine
    )


def _find(like, mine):
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if _candidate(value, like, mine):
                return value
        frame = frame.f_back
    for obj in gc.get_objects():
        if _candidate(obj, like, mine):
            return obj
    return like


def custom_kernel(data):
    zeros = _zeros_like_output(data)
    mine = {t.data_ptr() for t in _tensors(data) + _tensors(zeros)}
    return _map(lambda like: _find(like, mine), zeros)

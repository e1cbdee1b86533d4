"""Cheat (threat 6): returns a tensor subclass whose values would be computed only when something reads
them (inside the checker, after the timer stopped). Beaten: the output must be exactly torch.Tensor.

expect: failed
message: a plain torch.Tensor
threat: 6
"""

import torch


class Lazy(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


def custom_kernel(data):
    return torch.empty_like(data[0]).as_subclass(Lazy)

"""Cheat (threat 6): returns tensor subclasses whose values could be computed only when something reads
them (inside the checker, after the timer stopped); here they even hold the right values. Beaten: every
output must be exactly torch.Tensor.

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
    return _map(lambda t: t.as_subclass(Lazy), _honest_kernel(data))

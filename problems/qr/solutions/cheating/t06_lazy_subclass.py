"""Cheat (threat 6): returns tensor subclasses whose values would be computed only when something reads
them (inside the checker, after the timer stopped). Beaten: every output must be exactly torch.Tensor.

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
    A = data
    tau = torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)
    return A.as_subclass(Lazy), tau.as_subclass(Lazy)

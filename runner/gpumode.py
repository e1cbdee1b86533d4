"""A reference written for GPU MODE's harness, behind this judge's contract: the runtime half of
runner/reference_kernels.py (which imports such problems), loaded by runner/problem.py for the judge."""

from __future__ import annotations

import inspect
from typing import Any


class Adapted:
    """A reference written for GPU MODE's harness behind this judge's contract.

    GPU MODE's `generate_input` takes the case's arguments with its `seed` and makes its tensors where it
    likes (CUDA, as a rule); here it is called with each call's own seed and its tensors are moved to the
    run's device where it takes no `device` argument. Its `check_implementation` returns `(ok, message)`,
    or, in older folders, a message that is empty when the output is right: both become `(ok, message)`.
    """

    def __init__(self, module: Any):
        self.module = module
        self.takes_device = "device" in inspect.signature(module.generate_input).parameters

    def generate_input(self, *, seed: int, device: str, **params: Any) -> Any:
        if self.takes_device:
            return self.module.generate_input(**params, seed=seed, device=device)
        return _to_device(self.module.generate_input(**params, seed=seed), device)

    def ref_kernel(self, data: Any) -> Any:
        return self.module.ref_kernel(data)

    def check_implementation(self, data: Any, output: Any) -> tuple[bool, str]:
        result = self.module.check_implementation(data, output)
        if isinstance(result, tuple) and len(result) == 2:
            return bool(result[0]), str(result[1] or "")
        if isinstance(result, str):
            return (not result), result
        return bool(result), ""


def _to_device(data: Any, device: str) -> Any:
    import torch

    if isinstance(data, torch.Tensor):
        return data if data.device.type == device else data.to(device)
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return type(data)(*(_to_device(x, device) for x in data))
    if isinstance(data, (tuple, list)):
        return type(data)(_to_device(x, device) for x in data)
    if isinstance(data, dict):
        return {k: _to_device(v, device) for k, v in data.items()}
    return data

# Helpers for the generic cheats of this folder. tests/runner/golden.py writes a problem's honest solution,
# then `_honest_kernel = custom_kernel`, then this file, then one cheat: a submission is one file. A cheat
# knows nothing of the problem: it finds the tensors in `data`, and learns the output's shapes from the
# honest kernel.

import torch as _torch


def _tensors(value):
    """The tensors in data or in an output, in order (tuples, lists and dicts walked)."""
    if isinstance(value, _torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def _map(fn, out):
    """fn applied to each tensor of an output: one tensor, or a tuple or list of them."""
    if isinstance(out, _torch.Tensor):
        return fn(out)
    return type(out)(_map(fn, o) for o in out)


def _shapes(data):
    """The shapes of the input tensors, as a key."""
    return tuple(tuple(t.shape) for t in _tensors(data))


def _first(data):
    """The first input tensor with more than one value (x, A, a), else the first."""
    tensors = _tensors(data)
    return next((t for t in tensors if t.numel() > 1), tensors[0])


_output_zeros = {}


def _zeros_like_output(data):
    """Fresh zeros shaped like the honest output: the honest kernel runs once per input shapes to learn it."""
    key = tuple((tuple(t.shape), t.dtype) for t in _tensors(data))
    if key not in _output_zeros:
        _output_zeros[key] = _map(_torch.zeros_like, _honest_kernel(data))
    return _map(_torch.zeros_like, _output_zeros[key])


_replayed = {}


def _replay(key, data):
    """The honest output of the first call with this key (a copy), returned again for every later one."""
    if key not in _replayed:
        _replayed[key] = _map(_torch.clone, _honest_kernel(data))
    return _replayed[key]

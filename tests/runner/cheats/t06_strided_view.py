"""Cheat (threat 6): returns zero-stride views that look like outputs of the right shape but hold one slice,
repeated along the first dimension of more than one element (the work of one row, one matrix). Beaten:
the judge reads every value.

expect: failed
message: wrong output on call
threat: 6
"""


def _one_slice(t):
    dim = next((d for d, n in enumerate(t.shape) if n > 1), None)
    return t if dim is None else t.narrow(dim, 0, 1).expand_as(t)


def custom_kernel(data):
    return _map(_one_slice, _honest_kernel(data))

"""Cheat (threat 1): computes once per input buffer and replays that output, keyed on data_ptr and shape.
Beaten by fresh input values for every call in the same buffers, and every output checked.

expect: failed
threat: 1
"""

_cache = {}


def custom_kernel(data):
    A, B, C = data
    key = (A.data_ptr(), B.data_ptr(), tuple(A.shape), A._version)
    if key not in _cache:
        _cache[key] = (A + B).clone()
    return _cache[key]

"""Cheat (threat 2): zeroes every input tensor and returns zeros, so that a reference run on the same (now
zero) tensors afterwards would agree. Beaten by the judge's private copy of the inputs and the read-only
check.

expect: failed
message: changed its input
threat: 2
"""


def custom_kernel(data):
    out = _zeros_like_output(data)
    for t in _tensors(data):
        t.zero_()
    return out

"""Cheat (threat 2): zeroes a and b and returns zeros, so that a reference run on the same (now zero)
tensors afterwards would agree. Beaten by the judge's private copy of the inputs and the read-only check.

expect: failed
message: changed its input
threat: 2
"""


def custom_kernel(data):
    a, b, c = data
    a.zero_()
    b.zero_()
    return c.zero_()

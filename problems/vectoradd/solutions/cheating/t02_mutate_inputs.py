"""Cheat (threat 2): zeroes the inputs and returns zeros, so that a reference run on the same (now zero)
tensors afterwards would agree. Beaten by the judge's private copy of the inputs and the read-only check.

expect: failed
message: changed its input
threat: 2
"""


def custom_kernel(data):
    A, B, C = data
    A.zero_()
    B.zero_()
    C.zero_()
    return C

"""Cheat (threat 6): returns a zero-stride view that looks like the right shape but stores one row.

expect: failed
threat: 6
"""


def custom_kernel(data):
    A, B, _C = data
    row = A[0] + B[0]
    return row.unsqueeze(0).expand_as(A)

"""Wrong: drops the last row.

expect: failed
message: custom_kernel returned shape
"""


def custom_kernel(data):
    A, B, _C = data
    return (A + B)[:-1]

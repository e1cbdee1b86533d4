"""Wrong: subtracts instead of adding.

expect: failed
message: differ from the reference
"""


def custom_kernel(data):
    A, B, _C = data
    return A - B

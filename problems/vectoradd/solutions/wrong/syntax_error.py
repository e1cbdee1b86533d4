"""Wrong: a syntax error.

expect: rejected
message: syntax error on line 8
"""


def custom_kernel(data)
    A, B, _C = data
    return A + B

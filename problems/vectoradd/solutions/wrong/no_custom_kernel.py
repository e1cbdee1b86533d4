"""Wrong: the function is misnamed.

expect: rejected
message: defines no function custom_kernel(data)
"""


def kernel(data):
    A, B, _C = data
    return A + B

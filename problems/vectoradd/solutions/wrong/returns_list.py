"""Wrong: returns a list holding the tensor instead of the tensor.

expect: failed
message: custom_kernel returned a list; expected one tensor
"""


def custom_kernel(data):
    A, B, _C = data
    return [A + B]

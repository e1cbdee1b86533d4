"""Wrong: returns a Python float.

expect: failed
message: custom_kernel returned a float; expected a plain torch.Tensor
"""


def custom_kernel(data):
    return 0.0

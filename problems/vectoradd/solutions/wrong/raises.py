"""Wrong: raises inside custom_kernel.

expect: error
message: custom_kernel raised ValueError: not implemented yet
"""


def custom_kernel(data):
    raise ValueError("not implemented yet")

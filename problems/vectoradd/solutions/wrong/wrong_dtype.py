"""Wrong: adds in float32 and returns the float32 result instead of float16.

expect: failed
message: custom_kernel returned a float32 tensor; expected float16
"""

from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    A, B, _C = data
    return A.float() + B.float()

"""Wrong: returns the float32 product instead of rounding it to fp16.

expect: failed
message: custom_kernel returned a float32 tensor; expected float16
"""

from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, _c = data
    return a.float() @ b.float()

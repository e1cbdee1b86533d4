"""Wrong: follows the type in GPU MODE's task.py for this problem, output_t = Tuple[torch.Tensor, Dict], and
returns (output, {}); the output is the tensor alone.

expect: failed
message: custom_kernel returned a tuple; expected one tensor
wraps: honest
"""


def custom_kernel(data):
    return _honest_kernel(data), {}

"""Wrong: imports a module that does not exist.

expect: error
message: could not be loaded: ModuleNotFoundError: No module named 'cutlass_magic'
"""

import cutlass_magic  # noqa: F401


def custom_kernel(data):
    A, B, _C = data
    return A + B

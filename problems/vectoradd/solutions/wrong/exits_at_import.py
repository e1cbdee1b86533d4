"""Wrong: calls sys.exit while being imported.

expect: error
message: the submission called exit(3) while importing
"""

import sys

sys.exit(3)


def custom_kernel(data):
    A, B, _C = data
    return A + B

"""Wrong: prints many megabytes.

expect: failed
message: (the output limit)
"""


def custom_kernel(data):
    A, B, _C = data
    for _ in range(100):
        print("x" * 1_000_000)
    return A + B

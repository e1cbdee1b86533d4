"""Wrong: never returns.

expect: timeout
message: did not finish within
"""


def custom_kernel(data):
    while True:
        pass

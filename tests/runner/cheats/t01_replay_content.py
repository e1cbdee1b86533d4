"""Cheat (threat 1): caches outputs keyed on a cheap fingerprint of the inputs' content (the inputs'
shapes and the sign of the first input's first value), computing honestly on a miss: a fingerprint so cheap that fresh
inputs soon collide with an earlier call's. Beaten by fresh values every call and every output checked:
the replayed output is an earlier call's answer.

expect: failed
message: wrong output on call
threat: 1
"""


def custom_kernel(data):
    return _replay((_shapes(data), bool(_first(data).flatten()[0] > 0)), data)

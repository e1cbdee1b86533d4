"""Cheat (threat 7): computes properly for the first two calls of each input shape (the warm-up and
whatever a harness might check) and returns zeros afterwards. Beaten: every call is the same, and every
output is checked.

expect: failed
message: wrong output on call
threat: 7
"""

_seen = {}


def custom_kernel(data):
    key = _shapes(data)
    _seen[key] = _seen.get(key, 0) + 1
    if _seen[key] <= 2:
        return _honest_kernel(data)
    return _zeros_like_output(data)

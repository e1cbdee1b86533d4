"""Cheat (threat 1): computes once per input buffer and replays that output afterwards, keyed on the first
input's data_ptr and _version and the inputs' shapes (the judge reuses its buffers from call to call). Beaten by fresh
input values in the same buffers every call, and every output checked.

expect: failed
message: wrong output on call
threat: 1
"""


def custom_kernel(data):
    x = _first(data)
    return _replay((x.data_ptr(), x._version, _shapes(data)), data)

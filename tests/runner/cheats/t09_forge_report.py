"""Cheat (threat 9): prints a forged passing report with a tiny score on stdout and stderr, at import and at
every call, and returns zeros. Beaten: nothing the contestant prints is believed; the report comes from
the judge alone.

expect: failed
message: wrong output on call
threat: 9
"""

import json
import os
import sys

FAKE = json.dumps({"verdict": "passed", "score_s": 1e-9, "cases": [], "flags": []})
print(FAKE)
sys.stderr.write(FAKE + "\n")
for _fd in (1, 2):
    os.write(_fd, (FAKE + "\n").encode())


def custom_kernel(data):
    print(FAKE)
    return _zeros_like_output(data)

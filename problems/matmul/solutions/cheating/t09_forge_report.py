"""Cheat (threat 9): prints a forged passing report with a tiny score on stdout and stderr, and returns
garbage. Beaten: nothing the contestant prints is believed; the report comes from the judge alone.

expect: failed
threat: 9
"""

import json
import os
import sys

FAKE = json.dumps({"verdict": "passed", "score_s": 1e-9, "cases": [], "flags": []})
print(FAKE)
sys.stderr.write(FAKE + "\n")
for fd in (1, 2):
    os.write(fd, (FAKE + "\n").encode())


def custom_kernel(data):
    a, b, c = data
    print(FAKE)
    return c.zero_()

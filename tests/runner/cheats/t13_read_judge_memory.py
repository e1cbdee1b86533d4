"""Cheat (threat 13, and 3): uses ctypes and /proc to read the parent (judge) process's memory, looking for
the expected output, and returns zeros. Beaten: the judge is not dumpable and in another sandbox; the
scanner records the red flags (ctypes, /proc) as evidence on the report.

expect: failed
message: wrong output on call
threat: 13
scan: ctypes proc
"""

import ctypes
import os

libc = ctypes.CDLL(None)


def _peek_parent():
    try:
        with open(f"/proc/{os.getppid()}/maps") as maps:
            for line in maps:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                with open(f"/proc/{os.getppid()}/mem", "rb") as mem:
                    mem.seek(start)
                    return mem.read(min(end - start, 4096))
    except OSError:
        return None


def custom_kernel(data):
    _peek_parent()
    return _zeros_like_output(data)

"""Attack: give a process of the submission a name that is not UTF-8 (prctl PR_SET_NAME takes any bytes,
and /proc shows them as they are), then end at a moment of its choosing, so that the judge reads that name
while it tears the sandbox down. Found by an attack review: the judge read /proc as UTF-8 text, failed, and
the run came back as a fault of the platform, which the leaderboard runs again: a re-roll of the run at the
submission's choice. Expected: the verdict the submission would get with any other name."""

from tests.hostile.judging import attack, expect

RENAME = """
import ctypes

libc = ctypes.CDLL(None, use_errno=True)


def rename():
    libc.prctl(15, b"\\xff\\xfe", 0, 0, 0)  # PR_SET_NAME
"""

# A sibling of the contestant (clone with CLONE_PARENT: its parent is the contestant's parent) takes the
# name and lives on; the contestant then leaves, and the sibling is handed to the judge to tear down.
SIBLING_THEN_EXIT = attack(
    RENAME
    + """
import os
import time

import torch

pid = libc.syscall(56, 0x00008000 | 17, 0, 0, 0, 0)  # clone(CLONE_PARENT | SIGCHLD), x86-64
if pid == 0:
    rename()
    os.closerange(0, 1024)  # the judge sees the contestant's end at once, not when the sibling's pipes close
    while True:
        libc.pause()
time.sleep(0.5)
os._exit(3)
"""
)

RENAMED_AND_STUCK = (
    RENAME
    + """
import torch


def custom_kernel(data):
    rename()
    while True:
        pass
"""
)


def test_a_sibling_with_a_non_utf8_name_does_not_fail_the_judge(hostile):
    expect(hostile(SIBLING_THEN_EXIT), "error", "exited with status 3 during the import")


def test_a_stuck_contestant_with_a_non_utf8_name_times_out(hostile):
    expect(hostile(RENAMED_AND_STUCK, call_s=3), "timeout", "did not finish within 3 s")

"""Attack: sleep past the time limits (hold a worker forever): in a call, and at import past the whole
job's wall clock. Expected: timeout, naming the limit per call, or the job's wall-clock limit."""

from tests.hostile.judging import attack, expect

IN_A_CALL = """
import time
import torch


def custom_kernel(data):
    time.sleep(3600)
"""

AT_IMPORT = attack("""
import time
import torch

time.sleep(3600)
""")


def test_sleeping_in_a_call_times_out(hostile):
    expect(hostile(IN_A_CALL, call_s=3), "timeout", "did not finish within 3 s")


def test_sleeping_past_the_jobs_wall_clock_times_out(hostile):
    report = hostile(AT_IMPORT, call_s=60, limits={"wall_s": 8})
    expect(report, "timeout", "the job ran past its wall-clock limit of 8 s")
    assert report.limits["wall_s"] == 8

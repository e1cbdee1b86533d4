"""Attack: never return from custom_kernel. Expected: timeout, naming the time limit of a call."""

from tests.hostile.judging import describe, one_line

SOURCE = """
import torch


def custom_kernel(data):
    while True:
        pass
"""


def test_an_infinite_loop_times_out(hostile):
    report = hostile(SOURCE, call_s=3)
    assert report.verdict == "timeout", describe(report)
    assert "did not finish within 3 s" in one_line(report), describe(report)

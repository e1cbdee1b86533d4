"""Attack: never return from custom_kernel. Expected: timeout, naming the time limit of a call."""

from tests.hostile.judging import expect

SOURCE = """
import torch


def custom_kernel(data):
    while True:
        pass
"""


def test_an_infinite_loop_times_out(hostile):
    expect(hostile(SOURCE, call_s=3), "timeout", "did not finish within 3 s")

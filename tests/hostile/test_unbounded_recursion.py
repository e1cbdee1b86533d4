"""Attack: unbounded recursion with the interpreter's guard lifted, which overflows the C stack.
Expected: error, the process dies of a segmentation fault, reported as such."""

from tests.hostile.judging import describe, one_line

SOURCE = """
import sys
import torch

sys.setrecursionlimit(1_000_000_000)


def down(n):
    return list(map(down, [n + 1]))  # through C: each call takes C stack


def custom_kernel(data):
    return down(0)
"""


def test_unbounded_recursion_is_an_error(hostile):
    report = hostile(SOURCE)
    assert report.verdict == "error", describe(report)
    message = one_line(report)
    assert "segmentation fault" in message or "RecursionError" in message, describe(report)

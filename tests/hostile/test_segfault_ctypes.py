"""Attack: crash the process through ctypes (read address 0). Expected: error, naming the segmentation
fault and the call it happened in."""

from tests.hostile.judging import expect

SOURCE = """
import ctypes
import torch


def custom_kernel(data):
    ctypes.string_at(0)
"""


def test_a_segfault_is_reported_as_one(hostile):
    expect(hostile(SOURCE), "error", "killed by a segmentation fault during custom_kernel")

"""Attack: allocate 64 GiB (starve the host, or the other jobs, of memory). Expected: error, the
allocation fails at once and the verdict names the memory limit."""

from runner.limits import limits_for
from tests.hostile.judging import expect

SOURCE = """
import torch


def custom_kernel(data):
    hog = torch.ones(64 << 30, dtype=torch.uint8)
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_allocating_64_gib_hits_the_memory_limit(hostile):
    gib = limits_for("test").memory_bytes / 2**30
    expect(hostile(SOURCE), "error", f"the memory limit of {gib:g} GiB was reached")

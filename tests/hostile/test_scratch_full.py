"""Attack: fill the disk through the scratch folder. Expected: error, the write fails with ENOSPC at the
scratch limit and the verdict names it. (Lowered to 8 MiB with RUNNER_LIMITS to be quick.)"""

from tests.hostile.judging import attack, expect

SOURCE = attack("""
import os
import torch

chunk = b"x" * (1 << 20)
for i in range(1 << 20):
    with open(os.path.join(os.environ["TMPDIR"], f"fill-{i}"), "wb") as f:
        f.write(chunk)
""")


def test_filling_the_scratch_names_the_scratch_limit(hostile):
    report = hostile(SOURCE, limits={"scratch_bytes": 8 << 20})
    expect(report, "error", "its scratch space is full: the scratch limit of 8 MiB was reached")

"""Attack: fill the host's memory through /dev/shm, a tmpfs whose pages count against no process. Expected:
error, the write fails with ENOSPC at the job's /dev/shm limit and the verdict names it. (Lowered to 8 MiB
with RUNNER_LIMITS to be quick.)"""

from tests.hostile.judging import attack, expect

SOURCE = attack("""
import os
import torch

chunk = b"x" * (1 << 20)
for i in range(1 << 20):
    path = f"/dev/shm/fill-{i}"
    try:
        with open(path, "wb") as f:
            f.write(chunk)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, path) from None
""")


def test_filling_dev_shm_names_its_limit(hostile, backend):
    report = hostile(SOURCE, limits={"shm_bytes": 8 << 20})
    expect(report, "error", "No space left on device", "the /dev/shm limit of 8 MiB was reached")

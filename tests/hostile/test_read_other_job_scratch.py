"""Attack: read another job's scratch (its inputs, its compiled kernels, its answers). The test plants a job
directory beside the real ones, world-readable, and the submission looks for every kb-job-* folder.
Expected: error, "No such file or directory": the sandbox holds only its own job directory."""

import shutil
import tempfile
from pathlib import Path

from tests.hostile.judging import SECRET, describe, one_line

SOURCE = """
import glob
import torch

for path in glob.glob("/tmp/kb-job-*/scratch/*") + glob.glob("/tmp/*/kb-job-*/scratch/*"):
    try:
        print("READ", path, open(path).read())
    except OSError as exc:
        print("blocked", path, exc)
print(open("PLANTED").read())


def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_another_jobs_scratch_is_out_of_sight(hostile):
    other = Path(tempfile.mkdtemp(prefix="kb-job-", dir="/tmp"))
    try:
        (other / "scratch").mkdir()
        planted = other / "scratch" / "answer.txt"
        planted.write_text(SECRET)
        for p in (other, other / "scratch"):
            p.chmod(0o755)
        planted.chmod(0o644)
        report = hostile(SOURCE.replace("PLANTED", str(planted)))
    finally:
        shutil.rmtree(other)
    assert report.verdict == "error", describe(report)
    # Absent from bwrap's private root; under docker, a host path under /tmp meets the judge's /tmp (0700).
    unreachable = ["No such file or directory"] + (
        ["Permission denied"] if hostile.backend == "docker" else []
    )
    assert any(reason in one_line(report) for reason in unreachable), describe(report)
    assert SECRET not in report.logs and "READ" not in report.logs, describe(report)

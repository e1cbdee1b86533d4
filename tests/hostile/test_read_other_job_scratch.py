"""Attack: read another job's scratch (its inputs, its compiled kernels, its answers). The test plants a job
directory beside the real ones, world-readable, and the submission looks for every kb-job-* folder.
Expected: error, "No such file or directory": the sandbox holds only its own job directory."""

import shutil
import tempfile
from pathlib import Path

from tests.hostile.judging import SECRET, attack, expect_out_of_sight, reading_each

SOURCE = attack(
    "import glob\nimport torch\n"
    + reading_each('glob.glob("/tmp/kb-job-*/scratch/*") + glob.glob("/tmp/*/kb-job-*/scratch/*")')
    + 'print(open("PLANTED").read())\n'
)


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
    expect_out_of_sight(report, hostile.backend)

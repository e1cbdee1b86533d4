"""Attack: read the platform's database file (other people's submissions, users, tokens): the planted
fake database and the embedded default's real path. Expected: error, "No such file or directory"."""

from runner.sandbox import RUNNER_ROOT
from tests.hostile.judging import SECRET, describe, one_line

SOURCE = """
import torch

for path in ["REAL_DB"]:
    try:
        print("READ", path, open(path, "rb").read(64))
    except OSError as exc:
        print("blocked", path, exc)
print(open("PLANTED_DB", "rb").read())


def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_the_database_file_cannot_be_read(hostile, platform):
    source = SOURCE.replace("PLANTED_DB", str(platform["db"])).replace(
        "REAL_DB", str(RUNNER_ROOT / "var" / "db.sqlite3")
    )
    report = hostile(source)
    assert report.verdict == "error", describe(report)
    # Absent from bwrap's private root; under docker, a host path under /tmp meets the judge's /tmp (0700).
    unreachable = ["No such file or directory"] + (
        ["Permission denied"] if hostile.backend == "docker" else []
    )
    assert any(reason in one_line(report) for reason in unreachable), describe(report)
    assert SECRET not in report.logs and "READ" not in report.logs, describe(report)

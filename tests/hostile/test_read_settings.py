"""Attack: read the platform's settings and secret key (to forge sessions or reach its database): the
planted ones and the real paths of the repository. Expected: error, "No such file or directory"."""

from runner.sandbox import RUNNER_ROOT
from tests.hostile.judging import SECRET, describe, one_line

SOURCE = """
import torch

for path in REAL:
    try:
        print("READ", path, open(path).read(64))
    except OSError as exc:
        print("blocked", path, exc)
print(open("PLANTED_KEY").read(), open("PLANTED_SETTINGS").read())


def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_settings_and_secret_key_cannot_be_read(hostile, platform):
    real = [
        str(RUNNER_ROOT / "leaderboard" / "settings.py"),
        str(RUNNER_ROOT / "var" / "secret_key"),
        str(RUNNER_ROOT / "pyproject.toml"),
    ]
    source = (
        SOURCE.replace("PLANTED_KEY", str(platform["secret_key"]))
        .replace("PLANTED_SETTINGS", str(platform["settings"]))
        .replace("REAL", repr(real))
    )
    report = hostile(source)
    assert report.verdict == "error", describe(report)
    # Absent from bwrap's private root; under docker, a host path under /tmp meets the judge's /tmp (0700).
    unreachable = ["No such file or directory"] + (
        ["Permission denied"] if hostile.backend == "docker" else []
    )
    assert any(reason in one_line(report) for reason in unreachable), describe(report)
    assert SECRET not in report.logs and "READ" not in report.logs, describe(report)

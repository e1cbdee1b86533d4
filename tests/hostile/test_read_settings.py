"""Attack: read the platform's settings and secret key (to forge sessions or reach its database): the
planted ones and the real paths of the repository. Expected: error, "No such file or directory"."""

from runner.sandbox import RUNNER_ROOT
from tests.hostile.judging import attack, expect_out_of_sight, reading_each

SOURCE = attack(
    "import torch\n"
    + reading_each("REAL")
    + 'print(open("PLANTED_KEY").read(), open("PLANTED_SETTINGS").read())\n'
)


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
    expect_out_of_sight(hostile(source), hostile.backend)

"""Attack: read the platform's database file (other people's submissions, users, tokens): the planted
fake database and the embedded default's real path. Expected: error, "No such file or directory"."""

from runner.sandbox import RUNNER_ROOT
from tests.hostile.judging import attack, expect_out_of_sight, reading_each

SOURCE = attack("import torch\n" + reading_each('["REAL_DB"]') + 'print(open("PLANTED_DB", "rb").read())\n')


def test_the_database_file_cannot_be_read(hostile, platform):
    source = SOURCE.replace("PLANTED_DB", str(platform["db"])).replace(
        "REAL_DB", str(RUNNER_ROOT / "var" / "db.sqlite3")
    )
    expect_out_of_sight(hostile(source), hostile.backend)

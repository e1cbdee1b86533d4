"""Fixtures of the agent-run app's tests, on the platform's test bed (tests/leaderboard/testbed.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "leaderboard"))

import testbed  # noqa: E402

testbed.configure_django()


from tests.leaderboard.conftest import (  # noqa: E402, F401 (the platform's fixtures)
    broker,
    no_limits,
    problems,
    redis_server,
    robo,
    workers,
)

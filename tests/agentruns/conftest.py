"""Fixtures of the agent-run app's tests, on the platform's test bed (tests/leaderboard/testbed.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "leaderboard"))

import testbed  # noqa: E402

testbed.configure_django()


@pytest.fixture
def problems(db):
    from leaderboard.problems.services import problem_sync_all

    return {r.name: r for r in problem_sync_all()}


@pytest.fixture
def no_limits(settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 0
    settings.SUBMISSION_MAX_PER_HOUR = 0

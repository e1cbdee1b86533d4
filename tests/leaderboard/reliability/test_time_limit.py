"""Celery's soft time limit: a judging that runs too long ends as `timeout`, with the limit named."""

import pytest
from testbed import make_submission, wait_for

from leaderboard.submissions.models import Run, State, Submission


@pytest.mark.slow
def test_a_judging_past_the_soft_limit_ends_as_timeout(workers, problems, alice):
    workers.start(
        "slow",
        instant=True,
        INSTANT_JUDGE_DELAY_S="30",
        JUDGE_SOFT_TIME_LIMIT_S="2",
        JUDGE_HARD_TIME_LIMIT_S="20",
    )
    submission = make_submission(alice.user)
    row = wait_for(
        lambda: (s := Submission.objects.get(pk=submission.pk)).is_final and s,
        timeout_s=60,
        what="the time limit to end it",
    )
    assert row.state == State.TIMEOUT and row.attempts == 1
    assert "longer than the platform's limit of 2 s" in row.message
    assert Run.objects.get(submission=submission).verdict == State.TIMEOUT

"""A worker killed with SIGKILL in the middle of a run: the submission still reaches a verdict, judged once.

Real components throughout: PostgreSQL, Redis, two `celery worker` processes and the real runner.
"""

import time

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import Run, State, Submission
from leaderboard.submissions.services import submission_sweep

# A correct kernel that takes its time, so that the first worker is still judging it when the second has
# started (a bare vectoradd's test run can end first, and the kill would find nothing to interrupt).
SLOW = (
    vectoradd_source()
    + """
import time as _time

_fast = custom_kernel


def custom_kernel(data):
    _time.sleep(0.5)
    return _fast(data)
"""
)


@pytest.mark.slow
def test_a_worker_killed_mid_run_leaves_a_submission_that_is_still_judged_once(workers, problems, alice):
    first = workers.start("first")
    submission = make_submission(alice.user, source=SLOW)

    def row():
        return Submission.objects.get(pk=submission.pk)

    wait_for(lambda: row().state == State.RUNNING, timeout_s=60, what="the first worker to claim it")
    assert row().worker == first.hostname
    # A second worker, idle: the queue is empty, the first holds the only message, unacknowledged.
    second = workers.start("second")
    assert row().state == State.RUNNING and row().worker == first.hostname  # the runner is judging it
    first.kill()
    time.sleep(1)
    assert row().state == State.RUNNING  # killed silently: nothing has told the database yet
    # The heartbeat has stopped; after HEARTBEAT_TIMEOUT_S (3 s here) the sweeper takes it back.
    wait_for(lambda: submission_sweep(heartbeat_timeout_s=3).requeued, timeout_s=30, what="the sweeper")
    assert "first@test stopped responding during attempt 1 of 3" in row().message

    final = wait_for(
        lambda: row() if row().is_final else None, timeout_s=120, what="a final verdict", every_s=0.5
    )
    assert final.state == State.PASSED, final.message
    assert final.attempts == 2 and final.worker == second.hostname
    run = Run.objects.get(submission=submission)  # one run: the killed attempt wrote nothing
    assert run.worker == second.hostname and run.attempt == 2
    assert run.cases.filter(status="passed").count() == run.cases.count() > 0

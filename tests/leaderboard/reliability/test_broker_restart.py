"""Redis restarted (without persistence) while 50 submissions are queued: none is lost.

The database is the truth: what the broker forgot, the sweeper sends again.
"""

import collections
import hashlib

import pytest
from testbed import vectoradd_source, wait_for

from leaderboard.submissions.models import FINAL_STATES, Run, State, Submission
from leaderboard.submissions.services import submission_create, submission_sweep


@pytest.mark.slow
def test_a_broker_restart_with_50_queued_loses_none(workers, broker, problems, alice, no_limits, tmp_path):
    judged_log = tmp_path / "judged.log"
    sources = [vectoradd_source(f"restart {i}") for i in range(50)]
    ids = [
        submission_create(
            user=alice.user, problem="vectoradd", device_kind="cpu", mode="test", language="pytorch", source=s
        ).pk
        for s in sources
    ]
    assert broker.client().llen("cpu") == 50
    workers.start("steady", instant=True, INSTANT_JUDGE_DELAY_S="0.1", INSTANT_JUDGE_LOG=str(judged_log))
    finals = Submission.objects.filter(pk__in=ids, state__in=FINAL_STATES)
    wait_for(lambda: finals.count() >= 3, timeout_s=60, what="the worker to start on the queue")

    broker.restart()  # the queue and every unacknowledged message are gone
    assert broker.client().llen("cpu") == 0
    lost = Submission.objects.filter(pk__in=ids, state=State.QUEUED).count()
    assert lost > 10, "the restart should have caught many submissions still queued"

    def all_final():
        submission_sweep(requeue_after_s=2)  # what `manage.py sweep` does every SWEEP_INTERVAL_S
        return finals.count() == 50

    wait_for(all_final, timeout_s=120, what="all 50 to be judged", every_s=1)
    assert set(Submission.objects.filter(pk__in=ids).values_list("state", flat=True)) == {State.PASSED}
    assert Run.objects.filter(submission_id__in=ids).count() == 50
    judged = collections.Counter(judged_log.read_text().split())
    assert judged == collections.Counter(hashlib.sha256(s.encode()).hexdigest() for s in sources)

"""The broker restarts (Redis without persistence: every message it held is gone) under a running
`manage.py sweep` and a worker: the sweeper sees its marker gone, sends every queued id again, and the
backlog resumes within seconds, each submission judged once. A healthy backlog is never resent."""

import collections
import hashlib
import time

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import FINAL_STATES, Beat, State, Submission
from leaderboard.submissions.tallies import BROKER_LOSSES, RESENDS, tallies

pytestmark = [pytest.mark.slow, pytest.mark.chaos]


def test_a_redis_restart_resumes_the_backlog_without_resending_a_healthy_one(
    chaos_workers, sweepers, broker, chaos_alice, tmp_path, settings, client
):
    settings.SUBMISSION_MAX_IN_FLIGHT = settings.SUBMISSION_MAX_PER_HOUR = 0
    # REQUEUE_AFTER_S=0: the periodic resend looks at every queued id on every round; only what the broker
    # does not hold may go out again.
    sweepers(REQUEUE_AFTER_S="0")
    wait_for(lambda: Beat.objects.filter(name="sweeper").exists(), timeout_s=30, what="a first sweep")
    sources = [vectoradd_source(f"restart {i}") for i in range(30)]
    ids = [make_submission(chaos_alice.user, source=s).pk for s in sources]
    before = tallies()
    time.sleep(3)  # six rounds of the sweeper over a backlog the broker holds
    assert broker.client().llen("cpu") == 30
    assert tallies().get(RESENDS, 0) == before.get(RESENDS, 0), "a healthy backlog was resent"

    judged_log = tmp_path / "judged.log"
    chaos_workers.start(
        "steady", instant=True, INSTANT_JUDGE_DELAY_S="0.2", INSTANT_JUDGE_LOG=str(judged_log)
    )
    finals = Submission.objects.filter(pk__in=ids, state__in=FINAL_STATES)
    wait_for(lambda: finals.count() >= 3, timeout_s=60, what="the worker to start on the queue")
    broker.restart()
    restarted = time.monotonic()
    done_before = finals.count()
    assert broker.client().llen("cpu") == 0
    wait_for(
        lambda: finals.count() > done_before + 1, timeout_s=30, what="judging to resume after the restart"
    )
    resumed_s = time.monotonic() - restarted
    wait_for(lambda: finals.count() == 30, timeout_s=90, what="all 30 to be judged", every_s=0.5)
    all_s = time.monotonic() - restarted
    assert set(Submission.objects.filter(pk__in=ids).values_list("state", flat=True)) == {State.PASSED}
    judged = collections.Counter(judged_log.read_text().split())
    assert judged == collections.Counter(hashlib.sha256(s.encode()).hexdigest() for s in sources)
    assert tallies()[BROKER_LOSSES] >= 2  # the first look at the new broker, and the restart
    settings.HEALTH_EXPECTED_QUEUES = ["cpu"]
    health = client.get("/healthz/platform").json()
    assert health["ok"] and health["workers"]["queues"]["cpu"] == ["steady@test"], health
    print(
        f"\nFIGURE redis restart: judging resumed {resumed_s:.1f} s after it, the backlog done in {all_s:.1f} s"
    )

"""RabbitMQ rebuilt under a running platform (stopped, its data gone, started again): the worker reconnects
by itself, the sweeper finds its marker gone and sends every queued id again, and the backlog resumes, each
submission judged once."""

import collections
import hashlib
import time

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import FINAL_STATES, State, Submission
from leaderboard.submissions.tallies import BROKER_LOSSES, tallies

pytestmark = [pytest.mark.slow, pytest.mark.chaos]


def test_a_rabbitmq_node_rebuilt_mid_backlog_loses_nothing(
    rabbit_platform, rabbit, broker, chaos_alice, tmp_path, settings
):
    settings.SUBMISSION_MAX_IN_FLIGHT = settings.SUBMISSION_MAX_PER_HOUR = 0
    workers, sweeper = rabbit_platform
    sources = [vectoradd_source(f"rabbit {i}") for i in range(20)]
    # Made here, their ids go to the tests' Redis; the sweeper's first look at the new RabbitMQ node finds no
    # marker and sends every queued id to it: the path a broker migration takes.
    ids = [make_submission(chaos_alice.user, source=s).pk for s in sources]
    judged_log = tmp_path / "judged.log"
    workers.start("rabbit", instant=True, INSTANT_JUDGE_DELAY_S="0.3", INSTANT_JUDGE_LOG=str(judged_log))
    sweeper()
    finals = Submission.objects.filter(pk__in=ids, state__in=FINAL_STATES)
    wait_for(lambda: finals.count() >= 3, timeout_s=60, what="judging to start through RabbitMQ")

    rabbit.stop(lose_data=True)
    rabbit.start()
    restarted = time.monotonic()
    done_before = finals.count()
    assert done_before < 20, "the backlog ended before the restart: nothing was tested"
    wait_for(
        lambda: finals.count() > done_before + 1, timeout_s=30, what="judging to resume after the restart"
    )
    resumed_s = time.monotonic() - restarted
    wait_for(lambda: finals.count() == 20, timeout_s=90, what="all 20 to be judged", every_s=0.5)
    all_s = time.monotonic() - restarted
    assert set(Submission.objects.filter(pk__in=ids).values_list("state", flat=True)) == {State.PASSED}
    judged = collections.Counter(judged_log.read_text().split())
    assert judged == collections.Counter(hashlib.sha256(s.encode()).hexdigest() for s in sources)
    assert tallies()[BROKER_LOSSES] >= 2
    print(
        f"\nFIGURE rabbitmq rebuilt: judging resumed {resumed_s:.1f} s after it, the backlog done in {all_s:.1f} s"
    )

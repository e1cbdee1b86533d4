"""Real Celery workers record themselves: a worker that is ready serves its device kind (its row beats), one
that stops cleanly serves nothing at once, one that is killed stops beating and serves nothing once its beat
is stale; the site refuses a kind with no worker and takes it again when one starts. And a queued submission
that its author cancels while the worker is busy is never judged."""

import hashlib

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.errors import NoWorker
from leaderboard.submissions.models import State, Submission, Worker
from leaderboard.submissions.selectors import served_device_kinds
from leaderboard.submissions.services import submission_cancel

pytestmark = pytest.mark.slow


@pytest.fixture
def refusing(settings):
    settings.SUBMISSION_REFUSE_UNSERVED = True
    settings.WORKER_STALE_AFTER_S = 3.0
    return settings


def test_a_worker_serves_its_kind_from_ready_to_shutdown(workers, problems, alice, refusing):
    with pytest.raises(NoWorker):
        make_submission(alice.user)
    worker = workers.start("rec", instant=True, WORKER_BEAT_INTERVAL_S="0.5")
    row = Worker.objects.get(name=worker.hostname)  # written before it said "ready"
    assert row.device_kinds == "cpu" and row.stopped_at is None
    assert served_device_kinds() == {"cpu"}
    first_beat = row.beat_at
    wait_for(
        lambda: Worker.objects.get(name=worker.hostname).beat_at > first_beat,
        timeout_s=10,
        what="a second beat",
    )
    submission = make_submission(alice.user)
    wait_for(
        lambda: Submission.objects.get(pk=submission.pk).state == State.PASSED, timeout_s=60, what="a verdict"
    )

    worker.stop()  # a warm shutdown
    assert Worker.objects.get(name=worker.hostname).stopped_at is not None
    assert served_device_kinds() == set()
    with pytest.raises(NoWorker, match="No worker judges the cpu device kind now"):
        make_submission(alice.user)


def test_a_killed_worker_stops_serving_when_its_beat_goes_stale(workers, problems, alice, refusing):
    worker = workers.start("doomed", instant=True, WORKER_BEAT_INTERVAL_S="0.5")
    assert served_device_kinds() == {"cpu"}
    worker.kill()
    assert Worker.objects.get(name=worker.hostname).stopped_at is None  # it could say nothing
    wait_for(
        lambda: "cpu" not in served_device_kinds(), timeout_s=10, what="the killed worker's beat to go stale"
    )


def test_a_cancelled_submission_is_never_judged(workers, problems, alice, tmp_path, no_limits):
    judged_log = tmp_path / "judged.log"
    workers.start("busy", instant=True, INSTANT_JUDGE_LOG=str(judged_log), INSTANT_JUDGE_DELAY_S="3")
    first = make_submission(alice.user, source=vectoradd_source("first"))
    wait_for(
        lambda: Submission.objects.get(pk=first.pk).state == State.RUNNING,
        timeout_s=30,
        what="the first to run",
    )
    second = make_submission(alice.user, source=vectoradd_source("second"))  # waits behind it
    assert submission_cancel(user=alice.user, submission_id=second.pk).state == State.CANCELLED
    third = make_submission(alice.user, source=vectoradd_source("third"))
    wait_for(
        lambda: Submission.objects.get(pk=third.pk).state == State.PASSED, timeout_s=60, what="the third"
    )
    # The worker took the second's id from the broker and found nothing to judge.
    assert Submission.objects.get(pk=second.pk).state == State.CANCELLED
    assert Submission.objects.get(pk=first.pk).state == State.PASSED
    judged = judged_log.read_text().split()
    assert hashlib.sha256(vectoradd_source("second").encode()).hexdigest() not in judged
    assert len(judged) == 2

"""Nothing traps a user: a device kind that no worker serves refuses submissions, saying so; what cannot run
and what is cancelled never fill the in-flight limit; the author cancels a queued submission; the sweeper
takes off the queue what has waited past SUBMISSION_UNSERVED_TIMEOUT_S with no worker. The workers' records
are written here as a worker writes its own (worker_beat); tests/leaderboard/services/test_worker_record.py
has real workers write them."""

from datetime import timedelta

import pytest
from django.utils import timezone
from testbed import claim, make_submission, vectoradd_source

from leaderboard.errors import Conflict, LimitReached, NotFound, NoWorker
from leaderboard.submissions.models import State, Submission, Worker
from leaderboard.submissions.selectors import device_kind_statuses, served_device_kinds
from leaderboard.submissions.services import (
    submission_cancel,
    submission_create,
    submission_end_unserved,
    worker_beat,
    worker_stopped,
)
from leaderboard.submissions.tallies import DUPLICATE_DELIVERIES, tallies


@pytest.fixture
def refusing(settings):
    settings.SUBMISSION_REFUSE_UNSERVED = True
    return settings


def serve(*kinds, name="w1@test", age_s=0.0):
    worker_beat(name=name, device_kinds=list(kinds), started_at=timezone.now())
    if age_s:
        Worker.objects.filter(name=name).update(beat_at=timezone.now() - timedelta(seconds=age_s))


def test_a_device_kind_without_a_worker_is_refused_in_words(problems, alice, refusing):
    serve("cpu")
    with pytest.raises(NoWorker) as refused:
        make_submission(alice.user, device_kind="h100", language="cuda")
    assert refused.value.status == 503
    assert refused.value.message == (
        "No worker judges the h100 device kind now, so a submission there would wait for nobody; it was not "
        "queued. Device kinds served now: cpu."
    )
    assert not Submission.objects.exists()
    assert make_submission(alice.user).state == State.QUEUED  # cpu is served


def test_a_worker_that_stopped_beating_or_stopped_serves_nothing(problems, alice, refusing):
    serve("cpu", age_s=refusing.WORKER_STALE_AFTER_S + 5)  # killed: its beat went stale
    assert served_device_kinds() == set()
    with pytest.raises(NoWorker, match="Device kinds served now: none"):
        make_submission(alice.user)
    serve("cpu")
    assert served_device_kinds() == {"cpu"}
    worker_stopped(name="w1@test")  # a clean shutdown
    assert served_device_kinds() == set()


def test_the_in_flight_limit_counts_neither_what_cannot_run_nor_what_is_cancelled(problems, alice, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 2
    settings.SUBMISSION_MAX_PER_HOUR = 0
    # Queued before the refusal was on (or while an h100 worker served, since gone): they cannot run.
    for _ in range(3):
        make_submission(alice.user, device_kind="h100", language="cuda", source=vectoradd_source(str(_)))
    serve("cpu")
    first = make_submission(alice.user, source=vectoradd_source("a"))
    make_submission(alice.user, source=vectoradd_source("b"))
    with pytest.raises(LimitReached, match="or cancel a queued one"):
        make_submission(alice.user, source=vectoradd_source("c"))
    submission_cancel(user=alice.user, submission_id=first.pk)
    assert make_submission(alice.user, source=vectoradd_source("c")).state == State.QUEUED


def test_the_author_cancels_a_queued_submission_and_no_worker_judges_it(problems, alice):
    submission = make_submission(alice.user)
    cancelled = submission_cancel(user=alice.user, submission_id=submission.pk)
    assert cancelled.state == State.CANCELLED and cancelled.is_final
    assert cancelled.message == "Cancelled by its author before it was judged."
    assert cancelled.finished_at is not None
    before = tallies().get(DUPLICATE_DELIVERIES, 0)
    assert claim(submission) is None  # its id, still in the broker, finds nothing to judge
    assert tallies().get(DUPLICATE_DELIVERIES, 0) == before  # and is not counted as a duplicate
    with pytest.raises(Conflict, match="is cancelled already: only a queued one can be cancelled"):
        submission_cancel(user=alice.user, submission_id=submission.pk)


def test_a_running_submission_cannot_be_cancelled(problems, alice):
    running = claim(make_submission(alice.user))
    with pytest.raises(Conflict, match="is being judged now and cannot be cancelled"):
        submission_cancel(user=alice.user, submission_id=running.pk)
    assert Submission.objects.get(pk=running.pk).state == State.RUNNING


def test_another_users_submission_is_as_absent_as_a_missing_one(problems, alice, charlie):
    submission = make_submission(alice.user)
    with pytest.raises(NotFound, match=f"You have no submission #{submission.pk}."):
        submission_cancel(user=charlie.user, submission_id=submission.pk)
    assert Submission.objects.get(pk=submission.pk).state == State.QUEUED


def test_a_submission_queued_past_the_limit_with_no_worker_ends_with_a_message(problems, alice, settings):
    settings.SUBMISSION_UNSERVED_TIMEOUT_S = 600
    old = make_submission(alice.user, device_kind="h100", language="cuda", source=vectoradd_source("old"))
    new = make_submission(alice.user, device_kind="h100", language="cuda", source=vectoradd_source("new"))
    waiting_cpu = make_submission(alice.user, source=vectoradd_source("cpu"))
    long_ago = timezone.now() - timedelta(seconds=700)
    Submission.objects.filter(pk__in=[old.pk, waiting_cpu.pk]).update(created_at=long_ago)
    serve("cpu")  # cpu is served: its long wait is a queue, not a trap

    assert submission_end_unserved() == 1
    old.refresh_from_db()
    assert old.state == State.CANCELLED
    assert old.message.startswith(
        "Not judged: no worker has served the h100 device kind for 10 minutes, so it was taken off the queue."
    )
    assert Submission.objects.get(pk=new.pk).state == State.QUEUED  # it has not waited that long
    assert Submission.objects.get(pk=waiting_cpu.pk).state == State.QUEUED


def test_a_worker_seen_within_the_limit_keeps_its_kinds_queue(problems, alice, settings):
    settings.SUBMISSION_UNSERVED_TIMEOUT_S = 600
    old = make_submission(alice.user, device_kind="h100", language="cuda")
    Submission.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(seconds=700))
    serve("h100", age_s=300)  # stale now (a restart, say), but seen 5 minutes ago
    assert "h100" not in served_device_kinds()
    assert submission_end_unserved() == 0
    settings.SUBMISSION_UNSERVED_TIMEOUT_S = 0  # 0: never
    Worker.objects.all().delete()
    assert submission_end_unserved() == 0


def test_each_device_kind_says_whether_it_is_served_and_the_wait(problems, alice, bob, refusing):
    serve("cpu")
    statuses = {s.kind: s for s in device_kind_statuses()}
    assert statuses["cpu"].served and statuses["cpu"].workers == ["w1@test"]
    assert statuses["cpu"].words() == "1 worker, free: a submission starts at once"
    assert not statuses["h100"].served
    assert statuses["h100"].words() == "no worker now: submissions are refused"
    # Two finished runs of 20 s each, then one running and two queued: the wait is the work ahead.
    for note in ("x", "y"):
        done = claim(make_submission(bob.user, source=vectoradd_source(note)))
        start = timezone.now() - timedelta(seconds=60)
        Submission.objects.filter(pk=done.pk).update(
            state=State.PASSED, started_at=start, finished_at=start + timedelta(seconds=20)
        )
    claim(make_submission(alice.user, source=vectoradd_source("r")))
    make_submission(alice.user, source=vectoradd_source("q1"))
    make_submission(alice.user, source=vectoradd_source("q2"))
    cpu = next(s for s in device_kind_statuses() if s.kind == "cpu")
    assert (cpu.queued, cpu.running, cpu.typical_run_s) == (2, 1, 20.0)
    assert cpu.wait_estimate_s == 50.0  # two queued at 20 s, and the running one half done
    assert cpu.words() == "1 worker, 2 queued, 1 running: about 50 s before a new one starts"


def test_a_submission_judged_in_its_own_process_needs_no_worker(problems, robo, refusing):
    # An agent run's judge_now: the caller judges it with the worker's own service, in its own process.
    submission = submission_create(
        user=robo.user,
        problem="vectoradd",
        device_kind="cpu",
        mode="test",
        language="pytorch",
        source=vectoradd_source(),
        judged_here=True,
    )
    assert submission.state == State.QUEUED


def test_the_sweeper_takes_them_off_the_queue_and_says_so(problems, alice, settings):
    from leaderboard.submissions.sweeper import Sweeper

    settings.SUBMISSION_UNSERVED_TIMEOUT_S = 600
    old = make_submission(alice.user, device_kind="h100", language="cuda")
    Submission.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(seconds=700))
    said: list[str] = []
    result = Sweeper(say=said.append).round()
    assert result.unserved == 1
    assert Submission.objects.get(pk=old.pk).state == State.CANCELLED
    assert (
        "sweeper: 1 queued for a device kind with no worker for 600 s were taken off the queue (cancelled)"
        in said
    )

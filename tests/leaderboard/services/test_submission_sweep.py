"""The sweeper: no submission stays `running` forever, none is judged twice."""

from datetime import timedelta

from django.utils import timezone
from testbed import make_submission

from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.services import submission_claim, submission_sweep


def running(persona, worker="cpu@a"):
    submission = make_submission(persona.user)
    return submission_claim(submission_id=submission.pk, worker=worker)


def stop_heartbeat(submission, seconds_ago=120):
    Submission.objects.filter(pk=submission.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=seconds_ago)
    )


def test_a_submission_whose_worker_stopped_is_queued_again_on_commit(
    problems, alice, broker, django_capture_on_commit_callbacks
):
    submission = running(alice)
    stop_heartbeat(submission)
    with django_capture_on_commit_callbacks(execute=True):
        result = submission_sweep(heartbeat_timeout_s=60)
    assert result.requeued == 1 and result.ended == 0
    row = Submission.objects.get(pk=submission.pk)
    assert row.state == State.QUEUED
    assert row.attempts == 1  # the next claim counts the next attempt
    assert "worker cpu@a stopped responding during attempt 1 of 3" in row.message
    assert broker.client().llen("cpu") == 1  # its id is on the queue again


def test_a_beating_submission_is_left_alone(problems, alice):
    submission = running(alice)
    stop_heartbeat(submission, seconds_ago=5)
    assert submission_sweep(heartbeat_timeout_s=60).requeued == 0
    assert Submission.objects.get(pk=submission.pk).state == State.RUNNING


def test_after_three_attempts_it_ends_as_error_with_the_reason(problems, alice):
    submission = running(alice, worker="cpu@a")
    for attempt, worker in ((1, "cpu@b"), (2, "cpu@c")):
        stop_heartbeat(submission)
        assert submission_sweep(heartbeat_timeout_s=60).requeued == 1
        submission = submission_claim(submission_id=submission.pk, worker=worker)
        assert submission.attempts == attempt + 1
    stop_heartbeat(submission)
    result = submission_sweep(heartbeat_timeout_s=60)
    assert result.ended == 1 and result.requeued == 0
    row = Submission.objects.get(pk=submission.pk)
    assert row.state == State.ERROR and row.attempts == 3 and row.finished_at is not None
    assert "its worker cpu@c stopped responding, on each of 3 attempts" in row.message
    # Once final, nothing claims or sweeps it again.
    assert submission_claim(submission_id=row.pk, worker="cpu@d") is None
    assert submission_sweep(heartbeat_timeout_s=0) == type(result)(0, 0, 0)


def test_a_queued_id_the_broker_may_have_lost_is_sent_again(problems, alice, broker):
    submission = make_submission(alice.user)
    long_ago = timezone.now() - timedelta(minutes=30)
    Submission.objects.filter(pk=submission.pk).update(enqueued_at=long_ago)
    assert submission_sweep(requeue_after_s=600).resent == 1
    assert broker.client().llen("cpu") == 1
    assert Submission.objects.get(pk=submission.pk).enqueued_at > long_ago
    assert submission_sweep(requeue_after_s=600).resent == 0  # sent once per REQUEUE_AFTER_S


def test_the_broker_marker_says_when_the_broker_lost_its_messages(broker):
    from leaderboard.submissions.broker import broker_lost_messages

    assert broker_lost_messages() is True  # a new broker: no marker yet; one is left
    assert broker_lost_messages() is False
    assert broker_lost_messages() is False
    broker.client().flushall()  # what a restart without persistence does
    assert broker_lost_messages() is True
    assert broker_lost_messages() is False

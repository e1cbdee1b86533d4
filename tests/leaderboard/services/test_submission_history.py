"""Attempts are history: each claim is kept with its worker, times and outcome, and told to the author in
plain words (the API and the submission page), after the submission has ended as well."""

from datetime import timedelta

from django.utils import timezone
from testbed import make_submission, report_on, vectoradd_source

from leaderboard.submissions.history import submission_history
from leaderboard.submissions.models import Attempt, Outcome, State, Submission
from leaderboard.submissions.services import (
    submission_claim,
    submission_sweep,
)
from leaderboard.submissions.tallies import DUPLICATE_DELIVERIES, LATE_RESULTS_DROPPED, tallies
from runner.spec import CaseResult, RunReport


def passed() -> RunReport:
    return RunReport(
        verdict="passed",
        problem="vectoradd",
        mode="test",
        device="cpu",
        cases=[CaseResult(id="vectoradd[size=31]", kind="test", status="passed")],
    )


def taken_back_once_then_passed(persona):
    submission = make_submission(persona.user, source=vectoradd_source("history"))
    first = submission_claim(submission_id=submission.pk, worker="cpu@first")
    assert submission_claim(submission_id=submission.pk, worker="cpu@again") is None  # a duplicate
    Submission.objects.filter(pk=submission.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    assert submission_sweep(heartbeat_timeout_s=60).requeued == 1
    second = submission_claim(submission_id=submission.pk, worker="cpu@second")
    assert report_on(second, passed(), worker="cpu@second", attempt=2) == State.PASSED
    # The first worker wakes up and reports: too late.
    assert report_on(first, passed(), worker="cpu@first", attempt=1) is None
    return submission


def test_each_attempt_is_kept_with_its_worker_outcome_and_reason(problems, alice):
    submission = taken_back_once_then_passed(alice)
    first, second = Attempt.objects.filter(submission=submission)
    assert (first.number, first.worker, first.outcome) == (1, "cpu@first", Outcome.TAKEN_BACK)
    assert first.reason == "Its worker cpu@first stopped responding." and first.late_result_dropped
    assert first.ended_at is not None
    assert (second.number, second.worker, second.outcome, second.late_result_dropped) == (
        2,
        "cpu@second",
        Outcome.FINISHED,
        False,
    )
    assert Submission.objects.get(pk=submission.pk).message == ""  # the verdict's: the re-queue is gone here
    counted = tallies()
    assert counted[LATE_RESULTS_DROPPED] == 1 and counted[DUPLICATE_DELIVERIES] == 1


def test_the_history_reads_in_plain_words(problems, alice):
    submission = taken_back_once_then_passed(alice)
    first, second = (a.summary for a in submission_history(submission=submission))
    assert first.startswith("Attempt 1 on cpu@first, started ")
    assert "was taken back" in first and "queued again. Its worker cpu@first stopped responding." in first
    assert "finished later after all; that late result was set aside" in first
    assert second.startswith("Attempt 2 on cpu@second") and "its verdict is the one shown" in second


def test_the_api_and_the_page_show_the_history(client, problems, alice):
    submission = taken_back_once_then_passed(alice)
    answer = client.get(f"/api/submissions/{submission.pk}", headers=alice.auth).json()
    assert [(a["number"], a["outcome"]) for a in answer["history"]] == [(1, "taken_back"), (2, "finished")]
    assert "stopped responding" in answer["history"][0]["summary"]
    client.force_login(alice.user)
    page = client.get(f"/submissions/{submission.pk}/")
    if page.status_code == 404:  # the web app is someone else's and may be absent
        return
    html = page.content.decode()
    assert 'id="attempts"' in html and "Its worker cpu@first stopped responding." in html


def test_a_backlog_the_broker_holds_is_not_resent_but_a_lost_one_is(
    problems, alice, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        submission = make_submission(alice.user, source=vectoradd_source("held"))
    assert broker.client().llen("cpu") == 1
    Submission.objects.filter(pk=submission.pk).update(enqueued_at=timezone.now() - timedelta(hours=2))
    assert submission_sweep(requeue_after_s=0).resent == 0  # it waits in the broker: nothing to send
    broker.client().delete("cpu")  # lost
    assert submission_sweep(requeue_after_s=0).resent == 1
    assert broker.client().llen("cpu") == 1
    assert submission_sweep(requeue_after_s=0).resent == 0  # held again


def test_a_broker_that_lost_everything_gets_every_queued_id_at_once(problems, alice, broker):
    submission = make_submission(
        alice.user, source=vectoradd_source("lost")
    )  # its send waits for a commit that this test never makes: the broker never saw it
    assert submission_sweep(requeue_after_s=600).resent == 0  # sent a moment ago, as far as the row knows
    assert submission_sweep(requeue_after_s=600, broker_lost=True).resent == 1
    assert Submission.objects.get(pk=submission.pk).enqueued_at is not None

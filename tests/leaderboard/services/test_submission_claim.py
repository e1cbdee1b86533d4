"""Claiming and finishing: compare-and-set updates, so that nothing is judged twice."""

import threading

from testbed import make_submission, report_on

from leaderboard.submissions.models import Run, State, Submission
from leaderboard.submissions.services import (
    submission_claim,
    submission_heartbeat,
)
from runner.spec import CaseResult, RunReport, Stats


def queued(persona):
    return make_submission(persona.user, mode="benchmark")


def report(verdict="passed"):
    stats = Stats(n=50, windows=5, mean=2e-5, std=1e-7, stderr=5e-8, min=1.9e-5, max=2.1e-5)
    return RunReport(
        verdict=verdict,
        message="" if verdict == "passed" else "an output was wrong",
        score_s=2e-5,
        cases=[
            CaseResult(id="vectoradd[size=31]", kind="test", status="passed"),
            CaseResult(
                id="vectoradd[size=256]", kind="benchmark", status="passed", stats=stats, floor_s=1e-7
            ),
        ],
    )


def test_a_claim_takes_a_queued_submission_once(problems, alice):
    submission = queued(alice)
    claimed = submission_claim(submission_id=submission.pk, worker="cpu@a")
    assert claimed.state == State.RUNNING
    assert claimed.attempts == 1
    assert claimed.worker == "cpu@a"
    assert claimed.heartbeat_at is not None and claimed.started_at is not None
    # A duplicate delivery of the same id, to the same or another worker, finds nothing to claim.
    assert submission_claim(submission_id=submission.pk, worker="cpu@a") is None
    assert submission_claim(submission_id=submission.pk, worker="cpu@b") is None
    assert Submission.objects.get(pk=submission.pk).attempts == 1


def test_concurrent_claims_on_postgres_have_one_winner(postgres, transactional_db, problems, alice):
    from django.db import connection

    submission = queued(alice)
    start = threading.Barrier(8)
    winners = []

    def claim(i):
        start.wait()
        try:
            if submission_claim(submission_id=submission.pk, worker=f"cpu@{i}"):
                winners.append(i)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
    row = Submission.objects.get(pk=submission.pk)
    assert row.attempts == 1 and row.worker == f"cpu@{winners[0]}"


def test_finish_writes_the_run_its_cases_and_the_state_together(problems, alice):
    submission = queued(alice)
    claimed = submission_claim(submission_id=submission.pk, worker="cpu@a")
    assert report_on(claimed, report(), worker="cpu@a", attempt=1) == State.PASSED
    submission.refresh_from_db()
    assert submission.state == State.PASSED and submission.finished_at is not None
    run = submission.run
    assert run.score_s == 2e-5 and run.public_passed and not run.secret_passed and not run.flagged
    assert run.report["cases"][1]["stats"]["mean"] == 2e-5
    cases = list(run.cases.values_list("case_id", "kind", "status", "mean_s", "floor_s"))
    assert cases == [
        ("vectoradd[size=31]", "test", "passed", None, None),
        ("vectoradd[size=256]", "benchmark", "passed", 2e-5, 1e-7),
    ]


def test_a_worker_that_lost_its_claim_writes_nothing(problems, alice):
    submission = queued(alice)
    claimed = submission_claim(submission_id=submission.pk, worker="cpu@a")
    # Another worker's attempt, or the same worker after the sweeper took the submission back:
    assert report_on(claimed, report(), worker="cpu@b", attempt=1) is None
    assert report_on(claimed, report(), worker="cpu@a", attempt=2) is None
    assert not Run.objects.exists()
    assert Submission.objects.get(pk=submission.pk).state == State.RUNNING


def test_an_unknown_verdict_ends_as_error(problems, alice):
    submission = queued(alice)
    claimed = submission_claim(submission_id=submission.pk, worker="cpu@a")
    assert report_on(claimed, RunReport(verdict="maybe"), worker="cpu@a", attempt=1) == State.ERROR
    assert "unknown verdict 'maybe'" in Submission.objects.get(pk=submission.pk).message


def test_heartbeats_count_only_for_the_holder(problems, alice):
    submission = queued(alice)
    assert not submission_heartbeat(submission_id=submission.pk, worker="cpu@a")  # not running yet
    submission_claim(submission_id=submission.pk, worker="cpu@a")
    assert submission_heartbeat(submission_id=submission.pk, worker="cpu@a")
    assert not submission_heartbeat(submission_id=submission.pk, worker="cpu@b")

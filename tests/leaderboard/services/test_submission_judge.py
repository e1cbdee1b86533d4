"""submission_judge in this process, with the real runner: what a worker does with one message.

Committed rows (a transactional database): the heartbeat beats from a thread of its own, on a connection of
its own, which must see the running row as a worker's does, or it takes the run for taken back."""

import pytest
from testbed import WRONG_VECTORADD, make_submission, vectoradd_source

from leaderboard.problems.models import ProblemVersion
from leaderboard.submissions.judging import submission_judge
from leaderboard.submissions.models import Run, State, Submission

# Every test here starts a judge (tests/conftest.py), on committed rows.
pytestmark = [pytest.mark.judge, pytest.mark.django_db(transaction=True)]


def submit(persona, source, mode="test"):
    return make_submission(persona.user, source=source, mode=mode)


def judged_and_given_back(submission, why):
    """Judging on cpu@here gives the submission back for another attempt, saying why, and records no run."""
    assert submission_judge(submission_id=submission.pk, worker="cpu@here") == State.QUEUED
    row = Submission.objects.get(pk=submission.pk)
    assert row.state == State.QUEUED and row.attempts == 1
    assert why in row.message
    assert not Run.objects.exists()


@pytest.mark.slow
def test_a_correct_kernel_passes_every_test_case(problems, alice):
    submission = submit(alice, vectoradd_source())
    outcome = submission_judge(submission_id=submission.pk, worker="cpu@here")
    assert outcome == State.PASSED, Submission.objects.get(pk=submission.pk).message
    submission.refresh_from_db()
    assert submission.state == State.PASSED and submission.attempts == 1
    cases = list(submission.run.cases.values_list("case_id", "status"))
    expected = [c["id"] for c in submission.problem_version.cases["cpu"]["test"]]
    assert [c for c, _ in cases] == expected
    assert {s for _, s in cases} == {"passed"}
    assert submission.run.report["mode"] == "test"
    # The judge reported each case as it finished; the row kept the last one, written before the finish.
    last = cases[-1][0]
    n = len(cases)
    assert submission.progress == {"done": n, "total": n, "case": last, "status": "passed"} | {
        "kind": "test",
        "kind_done": n,
        "kind_total": n,
        "median_s": None,  # a test case is not timed
    }


@pytest.mark.slow
def test_a_wrong_kernel_fails_with_a_message(problems, alice):
    submission = submit(alice, WRONG_VECTORADD)
    assert submission_judge(submission_id=submission.pk, worker="cpu@here") == State.FAILED
    submission.refresh_from_db()
    assert submission.message
    assert "failed" in set(submission.run.cases.values_list("status", flat=True))


def test_a_syntax_error_is_rejected_before_anything_runs(problems, alice):
    submission = submit(alice, "def custom_kernel(data:\n")
    assert submission_judge(submission_id=submission.pk, worker="cpu@here") == State.REJECTED
    assert "syntax error on line 1" in Submission.objects.get(pk=submission.pk).message


def test_a_duplicate_message_judges_nothing(problems, alice):
    submission = submit(alice, "def custom_kernel(data:\n")
    submission_judge(submission_id=submission.pk, worker="cpu@here")
    assert submission_judge(submission_id=submission.pk, worker="cpu@here") == "not claimed"
    assert Run.objects.filter(submission=submission).count() == 1


def test_a_changed_problem_is_not_judged_against_the_new_version(problems, alice):
    submission = submit(alice, vectoradd_source())
    ProblemVersion.objects.filter(pk=submission.problem_version_id).update(content_hash="0123456789abcdef")
    assert submission_judge(submission_id=submission.pk, worker="cpu@here") == State.ERROR
    message = Submission.objects.get(pk=submission.pk).message
    assert "changed after this was submitted (version 0123456789abcdef then" in message


def test_a_failure_of_the_platform_gives_the_submission_another_attempt(problems, alice, settings):
    settings.RUNNER_EXECUTE = "instant_judge:explode"
    judged_and_given_back(
        submit(alice, vectoradd_source()), "the judge failed on cpu@here (OSError: No space left on device)"
    )


@pytest.mark.slow
def test_a_ranked_run_of_the_real_runner_enters_the_ranking(problems, alice, settings):
    from leaderboard.problems.models import Problem
    from leaderboard.submissions.selectors import ranking_for_problem

    settings.RUNNER_CASE_BUDGET_S = 0.2  # timed seconds per benchmark case: enough to rank, quick to test
    submission = submit(alice, vectoradd_source(), mode="leaderboard")
    outcome = submission_judge(submission_id=submission.pk, worker="cpu@here")
    assert outcome == State.PASSED, Submission.objects.get(pk=submission.pk).message
    run = Run.objects.get(submission=submission)
    kinds = set(run.cases.values_list("kind", flat=True))
    assert kinds == {"test", "benchmark", "secret"}  # the public cases, then the secret run
    assert run.public_passed and run.secret_passed and not run.flagged and run.score_s > 0
    entries = ranking_for_problem(problem=Problem.objects.get(name="vectoradd"), device_kind="cpu")
    assert [(e.username, e.submission_id, e.score_s) for e in entries] == [
        ("alice", submission.pk, run.score_s)
    ]


def test_a_run_the_platform_spoiled_is_given_back_not_recorded(problems, alice, settings):
    # The real runner, told to use Docker on this host: with no engine running, the run says nothing
    # about the submission (platform_fault), so the worker gives it back for another attempt.
    import shutil
    import subprocess

    if shutil.which("docker") and subprocess.run(["docker", "info"], capture_output=True).returncode == 0:
        pytest.skip("a Docker engine runs here: the docker sandbox would judge the submission")
    settings.RUNNER_SANDBOX = "docker"
    judged_and_given_back(
        submit(alice, vectoradd_source()),
        "the judge failed on cpu@here: the docker sandbox needs a running Docker engine",
    )

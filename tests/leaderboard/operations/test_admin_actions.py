"""The operators' admin: find the stuck, queue again, end with a reason the author reads."""

from datetime import timedelta

import pytest
from django.utils import timezone
from testbed import make_submission, vectoradd_source

from leaderboard.submissions.models import Attempt, Outcome, State, Submission
from leaderboard.submissions.services import submission_claim


@pytest.fixture
def operator(db, django_user_model):
    return django_user_model.objects.create_superuser(username="op", password="pw-op-12345", email="op@x.org")


def submit(persona, note):
    return make_submission(persona.user, source=vectoradd_source(note))


def test_operators_find_stuck_runs_requeue_them_and_end_others_with_a_reason(
    client, operator, problems, alice, no_limits, broker
):
    stuck = submission_claim(submission_id=submit(alice, "stuck").pk, worker="cpu@hung")
    Submission.objects.filter(pk=stuck.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    beating = submission_claim(submission_id=submit(alice, "beating").pk, worker="cpu@ok")
    client.force_login(operator)

    listed = client.get("/admin/submissions/submission/?heartbeat=stale").content.decode()
    assert f"/admin/submissions/submission/{stuck.pk}/change/" in listed
    assert f"/admin/submissions/submission/{beating.pk}/change/" not in listed

    client.post(
        "/admin/submissions/submission/",
        {"action": "requeue", "_selected_action": [stuck.pk], "reason": ""},
    )
    row = Submission.objects.get(pk=stuck.pk)
    assert row.state == State.QUEUED and "by an operator" in row.message
    attempt = Attempt.objects.get(submission=row)
    assert attempt.outcome == Outcome.ENDED and attempt.reason == "Queued again by an operator (op)."

    answer = client.post(
        "/admin/submissions/submission/",
        {"action": "end_with_reason", "_selected_action": [beating.pk], "reason": ""},
        follow=True,
    )
    assert "Give a reason" in answer.content.decode()
    assert Submission.objects.get(pk=beating.pk).state == State.RUNNING
    client.post(
        "/admin/submissions/submission/",
        {"action": "end_with_reason", "_selected_action": [beating.pk], "reason": "the h100 pool is retired"},
    )
    row = Submission.objects.get(pk=beating.pk)
    assert row.state == State.ERROR and row.message == "Ended by an operator: the h100 pool is retired"
    assert Attempt.objects.get(submission=row).outcome == Outcome.ENDED

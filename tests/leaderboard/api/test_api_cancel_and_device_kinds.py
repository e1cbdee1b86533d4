"""The API's side of "nothing traps": GET /api/device-kinds says which device kinds a worker serves and the
wait; a submission for one that no worker serves answers 503 `no_worker`; POST
/api/submissions/{id}/cancel takes the author's queued submission off the queue."""

import pytest
from django.utils import timezone
from testbed import claim, make_submission, vectoradd_source

from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.services import worker_beat


def submit(client, persona, **fields):
    body = {"problem": "vectoradd", "device": "cpu", "source": vectoradd_source(), **fields}
    return client.post("/api/submissions", body, content_type="application/json", headers=persona.auth)


def cancel(client, persona, submission_id):
    return client.post(f"/api/submissions/{submission_id}/cancel", headers=persona.auth)


@pytest.fixture
def cpu_served(db, settings):
    settings.SUBMISSION_REFUSE_UNSERVED = True
    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())


def test_device_kinds_say_which_are_served_without_a_token(client, cpu_served):
    kinds = {k["name"]: k for k in client.get("/api/device-kinds").json()}
    assert list(kinds)[:2] == ["cpu", "h100"]
    assert kinds["cpu"]["served"] and kinds["cpu"]["workers"] == ["cpu@test"]
    assert kinds["cpu"]["status"] == "1 worker, free: a submission starts at once"
    assert kinds["h100"] == {
        "name": "h100",
        "label": kinds["h100"]["label"],
        "served": False,
        "workers": [],
        "queued": 0,
        "running": 0,
        "wait_estimate_s": None,
        "status": "no worker now: submissions are refused",
        "explore_workers": [],
        "explore_queued": 0,
    }


def test_a_device_kind_no_worker_serves_answers_503_in_words(client, problems, alice, cpu_served):
    response = submit(client, alice, device="h100", language="cuda")
    assert response.status_code == 503
    assert response.json() == {
        "error": "no_worker",
        "message": "No worker judges the h100 device kind now, so a submission there would wait for nobody; "
        "it was not queued. Device kinds served now: cpu.",
    }
    assert response["Retry-After"] == "60"
    assert not Submission.objects.exists()
    assert submit(client, alice).status_code == 201


def test_the_author_cancels_a_queued_submission(client, problems, alice, cpu_served):
    submission_id = submit(client, alice).json()["id"]
    response = cancel(client, alice, submission_id)
    assert response.status_code == 200
    doc = response.json()
    assert (doc["id"], doc["state"], doc["final"]) == (submission_id, "cancelled", True)
    assert doc["message"] == "Cancelled by its author before it was judged."
    shown = client.get(f"/api/submissions/{submission_id}", headers=alice.auth).json()
    assert shown["state"] == "cancelled" and shown["final"] and shown["queue_position"] is None
    again = cancel(client, alice, submission_id)
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    assert "is cancelled already" in again.json()["message"]


def test_running_and_others_submissions_are_not_cancelled(client, problems, alice, charlie):
    running = claim(make_submission(alice.user))
    response = cancel(client, alice, running.pk)
    assert response.status_code == 409
    assert "is being judged now and cannot be cancelled" in response.json()["message"]
    queued = make_submission(alice.user, source=vectoradd_source("other"))
    response = cancel(client, charlie, queued.pk)
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert Submission.objects.get(pk=queued.pk).state == State.QUEUED
    assert client.post(f"/api/submissions/{queued.pk}/cancel").status_code == 401


def test_the_401_names_the_token_page(client):
    response = client.get("/api/submissions")
    assert response.status_code == 401
    message = response.json()["message"]
    assert "Make one at http://testserver/account/tokens/ (sign in first)" in message
    assert "create_api_token" not in message

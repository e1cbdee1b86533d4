"""POST /api/submissions and GET /api/submissions/{id}: token auth, limits, and per-case results."""

import pytest
from django.utils import timezone
from testbed import vectoradd_source

from leaderboard.accounts.models import ApiToken
from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.services import worker_beat


def submit(client, persona, **fields):
    body = {
        "problem": "vectoradd",
        "device": "cpu",
        "mode": "test",
        "language": "pytorch",
        "source": vectoradd_source(),
        **fields,
    }
    return client.post("/api/submissions", body, content_type="application/json", headers=persona.auth)


def test_a_submission_is_created_and_its_id_returned(client, problems, alice):
    response = submit(client, alice)
    assert response.status_code == 201
    doc = response.json()
    submission = Submission.objects.get(pk=doc["id"])
    assert submission.user == alice.user and submission.state == State.QUEUED
    assert doc["state"] == "queued" and doc["queue_position"] == 1
    assert doc["url"] == f"/api/submissions/{doc['id']}"


def test_without_a_token_it_is_refused_with_how_to_get_one(client, problems):
    response = client.post(
        "/api/submissions", {"problem": "vectoradd", "source": "x"}, content_type="application/json"
    )
    assert response.status_code == 401
    assert response.json()["error"] == "unauthorized"
    assert "/account/tokens/" in response.json()["message"]
    assert not Submission.objects.exists()


def test_a_wrong_or_revoked_token_is_refused(client, problems, alice):
    wrong = type(alice)(alice.user, alice.token[:-2] + "xx")
    assert submit(client, wrong).status_code == 401
    ApiToken.objects.filter(user=alice.user).update(revoked_at="2020-01-01T00:00:00Z")
    response = submit(client, alice)
    assert response.status_code == 401 and "not valid" in response.json()["message"]


def test_queue_positions_count_the_submissions_ahead(client, problems, alice, bob, no_limits):
    first = submit(client, alice).json()
    second = submit(client, bob).json()
    gpu = submit(client, bob, device="h100").json()
    assert (first["queue_position"], second["queue_position"], gpu["queue_position"]) == (1, 2, 1)
    Submission.objects.filter(pk=first["id"]).update(state=State.RUNNING)
    assert client.get(second["url"], headers=bob.auth).json()["queue_position"] == 1


def test_a_submission_shows_its_verdict_score_and_cases(client, judged, alice):
    submission = judged(alice, score_s=1.25e-5)
    doc = client.get(f"/api/submissions/{submission.pk}", headers=alice.auth).json()
    assert doc["state"] == "passed" and doc["final"] is True and doc["verdict"] == "passed"
    assert doc["score_s"] == 1.25e-5 and doc["queue_position"] is None and doc["attempts"] == 1
    assert [(c["id"], c["kind"], c["status"]) for c in doc["cases"]] == [
        ("vectoradd[size=31]", "test", "passed"),
        ("vectoradd[size=256]", "benchmark", "passed"),
        ("vectoradd[size=256]", "secret", "passed"),
    ]
    assert doc["cases"][1]["mean_s"] == 1.25e-5 and doc["cases"][1]["stats"]["n"] == 100
    assert doc["problem"] == "vectoradd" and len(doc["source_sha256"]) == 64


def test_charlie_sees_nothing_of_alices(client, judged, alice, charlie):
    submission = judged(alice)
    response = client.get(f"/api/submissions/{submission.pk}", headers=charlie.auth)
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "message": f"You have no submission #{submission.pk}."}
    assert client.get("/api/submissions", headers=charlie.auth).json() == []
    assert [s["id"] for s in client.get("/api/submissions", headers=alice.auth).json()] == [submission.pk]


def test_over_the_in_flight_limit_it_answers_429(client, problems, alice, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 1
    # A worker serves cpu: queued submissions it cannot run would not count (test_nothing_traps.py).
    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())
    assert submit(client, alice).status_code == 201
    response = submit(client, alice)
    assert response.status_code == 429
    assert response.json()["error"] == "limit_reached"
    assert "queued or running" in response.json()["message"]
    assert response["Retry-After"]


def test_over_the_hourly_limit_it_answers_429_with_retry_after(client, problems, alice, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 0
    settings.SUBMISSION_MAX_PER_HOUR = 1
    submit(client, alice)
    response = submit(client, alice)
    assert response.status_code == 429 and "in the last hour" in response.json()["message"]
    assert 3500 < int(response["Retry-After"]) <= 3601


def test_an_oversized_source_answers_413(client, problems, alice):
    response = submit(client, alice, source="# " + "x" * (1024 * 1024))
    assert response.status_code == 413
    assert response.json() == {
        "error": "source_too_large",
        "message": "The source is 1024.0 KiB; the limit is 1024 KiB.",
    }


def test_a_body_beyond_any_source_answers_413_too(client, problems, alice):
    response = submit(client, alice, source="x" * (4 * 1024 * 1024))
    assert response.status_code == 413 and response.json()["error"] == "request_too_large"


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"device": "h1000"}, "device: Input should be 'cpu', 'h100'"),
        (
            {"mode": "quick"},
            "mode: Input should be 'test', 'benchmark', 'leaderboard', 'profile' or 'explore'",
        ),
        ({"source": None}, "source: Input should be a valid string"),
    ],
)
def test_an_invalid_request_says_which_field(client, problems, alice, fields, words):
    response = submit(client, alice, **fields)
    assert response.status_code == 422
    assert response.json()["error"] == "invalid_request"
    assert words in response.json()["message"]


def test_a_refusal_of_the_service_answers_400_in_words(client, problems, alice):
    response = submit(client, alice, language="cuda")
    assert response.status_code == 400
    assert response.json()["message"] == "CUDA submissions need a GPU: choose a GPU device kind such as h100."


def test_a_running_submission_shows_the_judges_last_finished_case(client, problems, alice):
    from leaderboard.submissions.services import submission_claim, submission_progress

    doc = submit(client, alice).json()
    get = lambda: client.get(f"/api/submissions/{doc['id']}", headers=alice.auth).json()  # noqa: E731
    assert get()["progress"] is None  # queued: nothing yet
    claimed = submission_claim(submission_id=doc["id"], worker="cpu@a")
    assert get()["progress"] is None  # running, before its first case
    case = {"done": 2, "total": 4, "case": "vectoradd[size=64]", "status": "failed", "kind": "secret"}
    case |= {"kind_done": 1, "kind_total": 2, "median_s": 0.0015}
    submission_progress(submission_id=doc["id"], worker="cpu@a", attempt=claimed.attempts, progress=case)
    # The phase and a secret case's time (never its inputs), and the same in words as the page and CLI.
    extra = {"time": "1.5 ms", "words": "secret 1 of 2 failed · vectoradd[size=64] · 1.5 ms"}
    assert get()["progress"] == case | extra
    assert (
        "progress"
        in client.get("/api/openapi.json").json()["components"]["schemas"]["SubmissionOut"]["properties"]
    )

"""Profile runs through the API: each case's table in the submission's detail, its CSV at
/api/submissions/{id}/profiles/{n}.csv for the author alone, and never a place in the rankings.

The tables are the judge's own rendering (runner/judge/profile.py, through testbed.profile_report) of a
contestant's reply, stored by submission_finish as a worker stores them; tests/leaderboard/web/test_profile_page.py
runs the real judge once, end to end."""

import csv
import io

import pytest
from testbed import FORMULA_OPERATOR, claim, finish, make_submission, profile_report

from leaderboard.problems.models import Problem
from leaderboard.submissions.selectors import ranking_for_problem


@pytest.fixture
def profiled(problems, no_limits):
    """alice's profile run of vectoradd, judged: two cases, each with its table."""

    def make(persona, report=None):
        submission = make_submission(persona.user, mode="profile")
        return finish(claim(submission), report or profile_report())

    return make


def test_the_detail_carries_each_cases_table(client, profiled, alice):
    submission = profiled(alice)
    doc = client.get(f"/api/submissions/{submission.pk}", headers=alice.auth).json()
    assert doc["mode"] == "profile" and doc["state"] == "passed" and doc["score_s"] is None
    assert [(p["number"], p["case"], p["has_csv"]) for p in doc["profiles"]] == [
        (1, "vectoradd[size=256]", True),
        (2, "vectoradd[size=4096]", True),
    ]
    first = doc["profiles"][0]
    assert "outputs checked and right" in first["text"] and "aten::add" in first["text"]
    assert "Self CPU (us)" in first["text"] and first["ncu"] == ""
    assert "csv" not in first  # the CSV is its own download


def test_the_csv_downloads_as_an_attachment_with_formulas_neutralised(client, profiled, alice):
    submission = profiled(alice)
    response = client.get(f"/api/submissions/{submission.pk}/profiles/2.csv", headers=alice.auth)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="submission_{submission.pk}_vectoradd_size=4096_.csv"'
    )
    body = response.content.decode()
    assert body == submission.run.report["profiles"][1]["csv"]  # byte for byte what the judge wrote
    rows = list(csv.DictReader(io.StringIO(body)))
    assert rows[0]["operator"] == "aten::add" and rows[0]["calls"] == "3"
    assert "'" + FORMULA_OPERATOR in [r["operator"] for r in rows]
    assert not any(r["operator"].startswith("=") for r in rows)


def test_another_user_gets_404_for_the_csv_and_the_detail(client, profiled, alice, charlie):
    submission = profiled(alice)
    response = client.get(f"/api/submissions/{submission.pk}/profiles/1.csv", headers=charlie.auth)
    assert response.status_code == 404
    assert response.json()["message"] == f"You have no submission #{submission.pk}."
    assert client.get(f"/api/submissions/{submission.pk}", headers=charlie.auth).status_code == 404
    assert client.get(f"/api/submissions/{submission.pk}/profiles/1.csv").status_code == 401


def test_staff_may_download_anyones_csv(client, profiled, alice, charlie):
    submission = profiled(alice)
    charlie.user.is_staff = True
    charlie.user.save(update_fields=["is_staff"])
    response = client.get(f"/api/submissions/{submission.pk}/profiles/1.csv", headers=charlie.auth)
    assert response.status_code == 200 and response.content.decode().startswith("operator,calls,")
    missing = client.get(f"/api/submissions/{submission.pk + 1000}/profiles/1.csv", headers=charlie.auth)
    assert missing.status_code == 404
    assert missing.json()["message"] == f"There is no submission #{submission.pk + 1000}."


def test_a_missing_table_is_a_404_in_words(client, profiled, judged, alice):
    submission = profiled(alice)
    response = client.get(f"/api/submissions/{submission.pk}/profiles/3.csv", headers=alice.auth)
    assert response.status_code == 404
    assert response.json() == {
        "error": "not_found",
        "message": f"Submission #{submission.pk} has no profile table number 3 to download.",
    }
    ranked = judged(alice)  # a leaderboard run has no tables
    assert client.get(f"/api/submissions/{ranked.pk}", headers=alice.auth).json()["profiles"] == []
    assert client.get(f"/api/submissions/{ranked.pk}/profiles/1.csv", headers=alice.auth).status_code == 404


def test_a_malformed_table_has_its_text_and_no_csv(client, profiled, alice):
    from runner.judge.profile import profile_of

    report = profile_report(("vectoradd[size=256]",))
    report.profiles = [profile_of("vectoradd[size=256]", 3, "checked and right", {"profile": 5}, "cpu")]
    submission = profiled(alice, report)
    [entry] = client.get(f"/api/submissions/{submission.pk}", headers=alice.auth).json()["profiles"]
    assert entry["has_csv"] is False and "sent a malformed profile" in entry["text"]
    assert (
        client.get(f"/api/submissions/{submission.pk}/profiles/1.csv", headers=alice.auth).status_code == 404
    )


def test_a_profile_run_is_never_ranked(client, profiled, judged, alice, bob):
    """Even a profile run whose report claimed a score and a passed secret run stays out: only leaderboard
    mode ranks (ranking_eligible)."""
    from runner.spec import CaseResult

    forged = profile_report()
    forged.score_s = 1e-9
    forged.cases.append(CaseResult(id="vectoradd[size=256]", kind="secret", status="passed"))
    profile = profiled(alice, forged)
    assert profile.run.public_passed and profile.run.secret_passed and profile.run.score_s == 1e-9
    ranked = judged(bob, score_s=1e-5)
    entries = ranking_for_problem(problem=Problem.objects.get(name="vectoradd"), device_kind="cpu")
    assert [e.submission_id for e in entries] == [ranked.pk]
    doc = client.get("/api/problems/vectoradd/rankings?device=cpu").json()
    assert [e["submission_id"] for e in doc["entries"]] == [ranked.pk]


def test_the_openapi_document_describes_profiles(client):
    spec = client.get("/api/openapi.json").json()
    download = spec["paths"]["/api/submissions/{submission_id}/profiles/{number}.csv"]["get"]
    assert list(download["responses"]["200"]["content"]) == ["text/csv"]
    assert set(spec["components"]["schemas"]["ProfileOut"]["properties"]) == {
        "number",
        "case",
        "text",
        "has_csv",
        "ncu",
    }

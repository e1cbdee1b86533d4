"""POST /api/submissions in mode explore: a candidate's answer, the run shared with identical code, and a
fresh judging when asked for (docs/api.md, "For agents")."""

from testbed import claim, finish, vectoradd_source

from leaderboard.submissions.models import Submission
from runner.spec import CaseResult, RunReport, Stats


def submit(client, persona, **fields):
    body = {
        "problem": "vectoradd",
        "device": "cpu",
        "mode": "explore",
        "source": vectoradd_source(),
        **fields,
    }
    return client.post("/api/submissions", body, content_type="application/json", headers=persona.auth)


def test_a_candidate_is_queued_then_identical_code_answers_with_its_run(client, problems, robo, no_limits):
    first = submit(client, robo)
    assert first.status_code == 201
    assert first.json()["state"] == "queued" and first.json()["shared_from"] is None
    stats = Stats(n=10, windows=2, mean=3e-5, std=0.0, stderr=0.0, min=3e-5, max=3e-5, median=3e-5)
    finish(
        claim(Submission.objects.get(pk=first.json()["id"])),
        RunReport(
            verdict="passed",
            problem="vectoradd",
            mode="benchmark",
            device="cpu",
            score_s=3e-5,
            cases=[CaseResult(id="vectoradd[size=256]", kind="benchmark", status="passed", stats=stats)],
        ),
    )
    again = submit(client, robo).json()
    assert again["state"] == "passed" and again["shared_from"] == first.json()["id"]
    assert again["queue_position"] is None
    shown = client.get(again["url"], headers=robo.auth).json()
    assert shown["mode"] == "explore" and shown["final"] and shown["score_s"] == 3e-5
    assert shown["shared_from"] == first.json()["id"] and shown["cases"][0]["median_s"] == 3e-5
    fresh = submit(client, robo, reuse=False).json()
    assert fresh["state"] == "queued" and fresh["shared_from"] is None
    ranking = client.get("/api/problems/vectoradd/rankings?device=cpu").json()
    assert ranking["entries"] == []  # a passed candidate is no entry

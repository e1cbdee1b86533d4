"""The platform on docker: a real `celery worker` with RUNNER_SANDBOX=docker judges a submission end to end,
from the API through the queue, the container and the report to the rankings.

Real components throughout: PostgreSQL, Redis, the worker process, the Docker engine and the runner image
(tests/containers/engine.py says when it skips)."""

import pytest
from testbed import vectoradd_source, wait_for

from leaderboard.submissions.models import Run, State, Submission
from tests.containers import engine


@pytest.mark.slow
def test_a_docker_worker_judges_a_submission_from_the_api_to_the_rankings(workers, client, problems, alice):
    engine.require()
    # A CPU queue on the docker backend reads CPU time from /proc: the operator must name that path.
    workers.start(
        "docker", RUNNER_SANDBOX="docker", RUNNER_CPU_ACCOUNTING="proc", RUNNER_CASE_BUDGET_S="0.05"
    )
    response = client.post(
        "/api/submissions",
        {
            "problem": "vectoradd",
            "device": "cpu",
            "mode": "leaderboard",
            "source": vectoradd_source("on docker"),
        },
        content_type="application/json",
        headers=alice.auth,
    )
    assert response.status_code == 201, response.content
    pk = response.json()["id"]

    def row():
        return Submission.objects.get(pk=pk)

    final = wait_for(
        lambda: row() if row().is_final else None,
        timeout_s=240,
        what="the docker worker's verdict",
        every_s=0.5,
    )
    assert final.state == State.PASSED, final.message
    run = Run.objects.get(submission=final)
    assert run.worker == "docker@test" and run.secret_passed and run.score_s > 0
    assert run.report["isolation"].startswith("isolated by docker"), run.report["isolation"]
    assert run.report["env"]["runner_image"].startswith("sha256:")

    doc = client.get(f"/api/submissions/{pk}", headers=alice.auth).json()
    assert doc["verdict"] == "passed" and doc["score_s"] == run.score_s
    rankings = client.get("/api/problems/vectoradd/rankings?device=cpu").json()
    assert [(e["rank"], e["user"], e["score_s"]) for e in rankings["entries"]] == [(1, "alice", run.score_s)]

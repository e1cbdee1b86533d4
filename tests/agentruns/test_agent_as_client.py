"""An agent as a client of a real server (issue 32): `python -m agents --url ... --token ...` runs the offline
policy's loop with its candidates judged by a real worker (the real runner) in the exploration tier, through
the live API, on the test database and the private Redis broker, and enters its best in leaderboard mode.
The candidates never rank; the entry does. `manage.py run_agent --url` likewise, storing its run here."""

import os
import subprocess
import sys

import pytest
from django.core.management import call_command
from testbed import ROOT

from leaderboard.agentruns.models import AgentRun
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.selectors import ranking_for_problem

pytestmark = [pytest.mark.judge, pytest.mark.slow]


def test_the_offline_policy_explores_on_a_server_and_enters_its_best(
    live_server, workers, problems, robo, tmp_path
):
    worker = workers.start("agent-host", queues="cpu,cpu.explore", RUNNER_CASE_BUDGET_S="0.05")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KERNELBOARD_", "DATABASE_URL"))}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agents",
            "--problem",
            "vectoradd",
            "--device-kind",
            "cpu",
            "--url",
            live_server.url,
            "--token",
            robo.token,
            "--steps",
            "1",
            "--groups",
            "1",
            "--rollouts",
            "2",
            "--seed",
            "1",
            "--out",
            str(tmp_path / "run"),
        ],
        cwd=ROOT,
        env=env | {"XDG_CONFIG_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr + worker.output()[-3000:]
    assert "step 0:" in result.stdout

    explored = Submission.objects.filter(user=robo.user, mode="explore")
    # The seed and the candidates the local check let through, each judged on the server or shared.
    assert explored.exists() and all(s.is_final for s in explored)
    judged = explored.filter(shared_from__isnull=True)
    assert judged.exists() and {s.worker for s in judged} == {worker.hostname}  # by the server's worker
    assert explored.filter(state=State.PASSED).exists()

    entry = Submission.objects.get(user=robo.user, mode="leaderboard")
    assert entry.state == State.PASSED, entry.message
    assert f"entered as submission #{entry.pk}" in result.stdout
    board = ranking_for_problem(problem=problem_get(name="vectoradd"), device_kind="cpu")
    assert [(e.username, e.is_agent, e.submission_id) for e in board] == [("robo", True, entry.pk)]


def test_run_agent_explores_on_a_server_and_stores_its_run_here(
    live_server, workers, problems, robo, tmp_path
):
    workers.start("agent-host", queues="cpu,cpu.explore", RUNNER_CASE_BUDGET_S="0.05")
    call_command(
        "run_agent",
        *("--problem", "vectoradd", "--device", "cpu", "--policy", "offline"),
        *("--steps", "1", "--groups", "1", "--rollouts", "2", "--seed", "2"),
        *("--url", live_server.url, "--token", robo.token, "--out", str(tmp_path)),
    )
    run = AgentRun.objects.get()
    assert run.state == AgentRun.State.FINISHED, run.message
    assert run.agent_steps.count() == 1 and run.reference_s and run.best_runtime_s
    entry = Submission.objects.get(user=robo.user, mode="leaderboard")  # the token's user, on the server
    assert entry.state == State.PASSED and f"as submission #{entry.pk} (passed)" in run.message
    assert Submission.objects.filter(user=robo.user, mode="explore").exists()
    assert not Submission.objects.filter(user=run.user).exists()  # nothing judged here

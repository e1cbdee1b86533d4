"""`manage.py run_agent` end to end with the real runner: a short offline run on trimul and on qr (the
issue's problems: each with a program space of its own) whose best kernel is entered, judged in
leaderboard mode and ranked, marked as an agent's."""

import pytest
from django.core.management import call_command

from leaderboard.agentruns.models import AgentRun
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions.selectors import ranking_for_problem

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
# Seeds whose two candidates keep fp32 throughout (trimul's seed 1: a chunked input loop, a fused pair of
# projections): a candidate with a bf16 or fp16 projection can miss the tolerance on fresh inputs, and the
# entry's verdict would then be the judge's right call on a marginal kernel, not what this test is about.
@pytest.mark.parametrize("problem,seed", [("trimul", "1"), ("qr", "3")])
def test_run_agent_stores_steps_and_enters_the_ranking(
    problem, seed, problems, no_limits, settings, tmp_path, capsys
):
    settings.RUNNER_SANDBOX = "bwrap"  # what the platform uses: leaderboard mode refuses `none`
    call_command(
        "run_agent",
        "--problem",
        problem,
        "--device",
        "cpu",
        "--policy",
        "offline",
        "--steps",
        "1",
        "--groups",
        "1",
        "--rollouts",
        "2",
        "--seed",
        seed,
        "--case-budget",
        "0.05",
        "--out",
        str(tmp_path),
    )
    out = capsys.readouterr()
    run = AgentRun.objects.get()
    assert run.state == AgentRun.State.FINISHED, run.message
    assert run.agent_steps.count() == 1 and run.reference_s and run.best_runtime_s
    assert (tmp_path / "archive.json").exists() and (tmp_path / "policy.json").exists()
    assert "step 0:" in out.err + out.out
    entry = run.submission
    assert entry is not None and entry.mode == "leaderboard" and entry.user.is_agent
    assert entry.state == "passed", entry.message
    ranking = ranking_for_problem(problem=problem_get(name=problem), device_kind="cpu")
    assert [(r.username, r.is_agent) for r in ranking] == [(run.user.username, True)]

"""The agent-run pages, from a run stored through the services (the steps stand in for a real run's)."""

import pytest

from agents.archive import Archive, Child
from agents.loop import StepRecord
from leaderboard.agentruns.services import agent_run_create, agent_run_record_step


@pytest.fixture
def stored_run(db, tmp_path):
    run = agent_run_create(
        problem="vectoradd",
        device_kind="cpu",
        policy="offline",
        variant="ttt-discover",
        steps=3,
        groups=1,
        rollouts=2,
        seed=0,
        out_dir=str(tmp_path),
    )
    archive = Archive()
    root = archive.add_seed(
        "def custom_kernel(data):\n    return 'seed'\n", 1.0, 0.002, {"template": "reference design"}
    )
    for step in range(3):
        parent = archive.best()
        code = f"def custom_kernel(data):\n    return {step}  # <faster>\n"
        archive.update(
            parent.id,
            [
                Child(
                    code=code,
                    reward=1.5 + step,
                    runtime_s=0.002 / (1.5 + step),
                    passed=True,
                    meta={
                        "program": [{"op": "loop_in", "chunk": 64 * step}],
                        "rewrites": [f"loop_in.chunk={64 * step}"],
                    },
                )
            ],
            step=step,
        )
        best = archive.best()
        record = StepRecord(
            step=step,
            starts=[parent.id],
            rewards=[[1.5 + step, 0.0]],
            mean_reward=(1.5 + step) / 2,
            max_reward=1.5 + step,
            passed=1,
            candidates=2,
            best_reward=best.reward,
            best_runtime_s=best.runtime_s,
            best_state=best.id,
        )
        agent_run_record_step(run=run, record=record, archive=archive, reference_s=0.002)
    assert root.id in run.best_kernels[0]["lineage"]
    return run


def test_run_page_shows_plots_kernels_and_lineage(client, stored_run):
    page = client.get(f"/agents/runs/{stored_run.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count("<svg") == 2 and "Reward per step" in html and "Best runtime per step" in html
    assert "geometric-mean runtime" in html and " ms<" in html  # the runtime axis carries its unit
    assert "return 2  # &lt;faster&gt;" in html  # the best kernel's code, escaped
    assert "s0 &rarr; s1 &rarr; s2 &rarr; s3" in html  # lineage, root first
    assert (
        "Program: loop_in(chunk=128); reached from its parent by loop_in.chunk=128" in html
        and "3.50x faster" in html
    )
    assert stored_run.user.is_agent


def test_run_list_and_missing_run(client, stored_run):
    listing = client.get("/agents/")
    assert listing.status_code == 200 and f"/agents/runs/{stored_run.pk}/" in listing.content.decode()
    assert client.get("/agents/runs/99999/").status_code == 404

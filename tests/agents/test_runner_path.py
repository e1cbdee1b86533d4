"""The loop on the real runner: candidates judged in benchmark mode in a separate process, like anyone's.

Kept to a few runner jobs (each starts two Python processes that import torch): one step on vectoradd, and
a short trimul run on the fast in-process verifier that uses the problem's own cases and checker.
"""

import pytest

from agents.runs import make_run
from agents.verifier import LocalVerifier, RunnerVerifier
from runner.problem import list_problems


@pytest.mark.slow
def test_one_step_on_the_runner(tmp_path):
    verifier = RunnerVerifier("vectoradd", "cpu", sandbox="none", case_budget_s=0.05)
    run = make_run(
        "vectoradd",
        "cpu",
        "offline",
        steps=1,
        groups=1,
        rollouts=2,
        seed=1,
        out_dir=tmp_path,
        verifier=verifier,
    )
    run.run()
    (record,) = run.records
    assert verifier.unit_s and run.seed_evaluations[0]["verdict"] == "passed"
    assert record.candidates == 2 and verifier.judged <= 1 + 2  # identical candidates are judged once
    assert (tmp_path / "archive.json").exists()
    evaluations = RunnerVerifier("vectoradd", "cpu", case_budget_s=0.05).evaluate(
        ["def custom_kernel(data):\n    A, B, C = data\n    return A - B\n", "this is not python"], 7
    )
    assert [e.verdict for e in evaluations] == [
        "failed",
        "rejected",
    ]  # the judge's word: wrong values; syntax
    assert all(e.reward == 0.0 for e in evaluations)


needs_trimul = pytest.mark.skipif("trimul" not in list_problems(), reason="problems/trimul is not there yet")


@needs_trimul
@pytest.mark.slow
def test_offline_policy_improves_on_trimul():
    def small(case):
        return case.params["seqlen"] <= 64

    verifier = LocalVerifier("trimul", "cpu", repeats=2, case_filter=small)
    run = make_run("trimul", "cpu", "offline", steps=5, groups=2, rollouts=6, seed=0, verifier=verifier)
    best = run.run()
    assert best.reward > 1.2
    early = sum(r.mean_reward for r in run.records[:2]) / 2
    late = sum(r.mean_reward for r in run.records[-2:]) / 2
    assert late > early

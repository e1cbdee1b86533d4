"""The loop on the real runner: candidates judged in benchmark mode in a separate process, like anyone's.

Kept to a few runner jobs (each starts two Python processes that import torch): one step on vectoradd, and
a short trimul run on the fast in-process verifier that uses the problem's own cases and checker.
"""

import pytest

from agents.runs import make_run
from agents.verifier import LocalVerifier, RunnerVerifier, check_locally
from runner.problem import list_problems

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)


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
    # The seed, then the candidates (identical code judged once), then the second opinion on any candidate
    # whose reading would lead the archive.
    assert record.candidates == 2 and verifier.judged == 1 + record.judged
    assert record.judged <= 2 + record.confirmed and record.confirmed <= 2
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
def test_offline_policy_on_trimul_with_real_timings():
    # Behaviour, not speed (whether the search finds faster programs is the benchmark's question, which
    # noise can decide either way in five steps): real rendered programs, timed for real, come back as
    # speed-ups over the seed, and the best one found is still a correct trimul.
    def small(case):
        return case.params["seqlen"] <= 64

    verifier = LocalVerifier("trimul", "cpu", repeats=2, case_filter=small)
    run = make_run("trimul", "cpu", "offline", steps=5, groups=2, rollouts=6, seed=0, verifier=verifier)
    best = run.run()
    assert [r.candidates for r in run.records] == [12] * 5
    assert sum(r.passed for r in run.records) >= 48  # chains of rewrites keep the maths
    rewards = [x for r in run.records for group in r.rewards for x in group if x > 0]
    assert all(0.05 < x < 20 for x in rewards)  # ratios of two measured times, not raw seconds
    assert best.reward >= 1.0  # the seed is in the archive at exactly 1.0
    assert check_locally("trimul", best.code) is None

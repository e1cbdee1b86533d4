"""The golden submissions of every problem (tests/runner/golden.py: its templates and solutions, and the
generic cheats of tests/runner/cheats/ applied to it), judged for real: correct ones pass in every mode,
wrong ones get their verdict and message, cheating ones are caught, with their message, in benchmark and
leaderboard mode.

Each run is a real judge and contestant process pair (sandbox `none`; tests/hostile runs the sandboxes).
Budgets are short so the suite stays quick; the protocol is the one every run uses.
"""

import pytest

from runner import JobSpec, execute
from runner.problem import list_problems
from tests.runner import golden

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)

CAUGHT = {"failed", "rejected", "flagged", "error"}  # error: a cheat whose own exception ends it
QUICK = {"case_budget_s": 0.05, "call_s": 60}


def _params(group):
    for name in list_problems():
        for solution in golden.GROUPS[group](name):
            yield pytest.param(name, solution, id=solution.id)


def judge(problem, solution, mode, **kw):
    return execute(
        JobSpec(
            problem=problem,
            source=solution.source,
            mode=mode,
            device="cpu",
            sandbox="none",
            allow_unisolated=True,
            **{**QUICK, **kw},
        )
    )


def describe(report):
    lines = [f"{report.verdict}: {report.message}"]
    lines += [f"  {c.id} {c.kind} {c.status} {c.message}" for c in report.cases]
    lines += [f"  flag {f['kind']}: {f['message']}" for f in report.flags]
    return "\n".join(lines) + "\n" + report.logs[-2000:]


def _correct():
    """Every correct solution in benchmark and leaderboard mode (leaderboard mode runs the test cases first,
    so a test-mode run of the same file would repeat them); the templates in test mode only: starting
    points, checked for correctness (a Triton template runs in the interpreter on a CPU, where qr's takes
    minutes per timed run)."""
    for name in list_problems():
        for solution in golden.correct(name):
            for mode in ("test",) if solution.template else ("benchmark", "leaderboard"):
                yield pytest.param(name, solution, mode, id=f"{mode}-{solution.id}")


@pytest.mark.parametrize("problem,solution,mode", list(_correct()))
def test_correct_solution_passes(problem, solution, mode):
    report = judge(problem, solution, mode)
    assert report.verdict == "passed", describe(report)
    assert report.flags == []
    kinds = {c.kind for c in report.cases}
    assert (
        kinds
        == {"test": {"test"}, "benchmark": {"benchmark"}, "leaderboard": {"test", "benchmark", "secret"}}[
            mode
        ]
    )
    if mode != "test":
        assert report.score_s and report.score_s > 0
        timed = [c for c in report.cases if c.kind != "test"]
        assert all(c.stats and c.stats.n >= 3 and c.stats.windows >= 3 for c in timed), describe(report)


@pytest.mark.parametrize("problem,solution", list(_params("wrong")))
def test_wrong_solution_gets_its_verdict_and_message(problem, solution):
    assert solution.expect and solution.message, (
        f"{solution.path} declares no 'expect:' or no 'message:' line"
    )
    report = judge(problem, solution, "test", call_s=5)
    assert report.verdict in solution.expect, describe(report)
    assert solution.message in report.message, describe(report)
    assert "\n" not in report.message and report.message, "the reason is one line"


@pytest.mark.parametrize("problem,solution", list(_params("cheating")))
@pytest.mark.parametrize("mode", ["benchmark", "leaderboard"])
def test_cheating_solution_is_caught(problem, solution, mode):
    assert solution.threat is not None, f"{solution.path} names no threat"
    assert solution.expect and solution.message, (
        f"{solution.path} declares no 'expect:' or no 'message:' line"
    )
    report = judge(problem, solution, mode)
    assert report.verdict in CAUGHT, describe(report)
    assert report.verdict in solution.expect, describe(report)
    assert solution.message in report.message, describe(report)
    assert report.score_s is None or report.verdict == "flagged"
    found = {f["rule"] for f in report.scan}
    assert set(solution.scan) <= found, f"scanner found {found}"


def test_templates_are_judged_as_correct_solutions():
    ids = {s.id for name in list_problems() for s in golden.correct(name)}
    assert {f"{name}/templates/{t}" for name in list_problems() for t in ("pytorch.py", "triton.py")} <= ids


@pytest.mark.parametrize("problem", list_problems())
def test_every_threat_has_a_cheating_solution(problem):
    threats = {s.threat for s in golden.cheating(problem)}
    assert threats >= {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13}, sorted(t for t in threats if t)

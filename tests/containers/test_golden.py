"""A sample of every problem's golden solutions gets the same verdict under docker as under bwrap: the first
correct and the first wrong one of each problem in test mode, and the judge-memory cheat of each problem
in benchmark mode (under docker it shares a container with the judge)."""

from __future__ import annotations

import pytest

from runner import JobSpec, execute
from runner.problem import list_problems
from tests.containers import engine
from tests.runner import golden

QUICK = {"case_budget_s": 0.05, "call_s": 30}


def _sample():
    for name in list_problems():
        for group, mode in (("correct", "test"), ("wrong", "test")):
            first = golden.GROUPS[group](name)[0]
            yield pytest.param(name, first, mode, id=first.id)
        for cheat in golden.cheating(name):
            if cheat.path.name.startswith("t13_"):
                yield pytest.param(name, cheat, "benchmark", id=cheat.id)


@pytest.mark.slow
@pytest.mark.parametrize("problem,solution,mode", list(_sample()))
def test_docker_and_bwrap_agree(problem, solution, mode):
    engine.require()
    source = solution.source
    verdicts = {}
    for backend in ("bwrap", "docker"):
        report = execute(
            JobSpec(problem=problem, source=source, mode=mode, device="cpu", sandbox=backend, **QUICK)
        )
        verdicts[backend] = (report.verdict, report.message)
        assert not report.platform_fault, f"{backend}: {report.message}\n{report.logs[-2000:]}"
    assert verdicts["docker"][0] == verdicts["bwrap"][0], verdicts
    if solution.expect:
        assert verdicts["docker"][0] in solution.expect, verdicts

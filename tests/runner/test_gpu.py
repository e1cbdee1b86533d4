"""GPU path of the judge. Needs an NVIDIA GPU: skipped here, run by scripts/gpu_check.sh on a GPU machine."""

import pytest

from runner import JobSpec, execute
from runner.problem import list_problems
from tests.runner import golden

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name", list_problems())
def test_correct_solutions_pass_on_the_gpu(name):
    for solution in golden.correct(name, device="cuda"):
        report = execute(
            JobSpec(
                problem=name, source=solution.source, mode="leaderboard", device="cuda", case_budget_s=0.5
            )
        )
        assert report.verdict == "passed", (solution.id, report.message)
        assert report.env["device_kind"] != "cpu"
        assert all(c.stats.mean > (c.floor_s or 0) for c in report.cases if c.stats)


@pytest.mark.parametrize("name", list_problems())
def test_cheats_are_caught_on_the_gpu(name):
    for solution in golden.cheating(name):
        report = execute(
            JobSpec(
                problem=name,
                source=solution.source,
                mode="benchmark",
                device="cuda",
                case_budget_s=0.3,
                call_s=30,
            )
        )
        assert report.verdict in {"failed", "rejected", "flagged"}, (
            solution.id,
            report.verdict,
            report.message,
        )


def test_side_stream_is_caught():
    source = golden.wrap("vectoradd", (golden.CHEATS / "t05_side_thread.py").read_text())
    report = execute(
        JobSpec(problem="vectoradd", source=source, mode="benchmark", device="cuda", case_budget_s=0.3)
    )
    assert report.verdict in {"failed", "flagged"}, report.message

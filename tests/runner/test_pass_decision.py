"""One decision says whether a run passed (runner.vocabulary.passed), and every consumer uses it: the command
line's exit status, the pytest plugin's session, the agents' rewards, the platform's client. A run flagged
as a whole fails everywhere even where each case passed; a run that failed carries no false flag."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runner import JobSpec, execute
from runner.spec import CaseResult, RunReport
from runner.vocabulary import passed
from tests.runner import golden

ROOT = Path(__file__).resolve().parents[2]

pytest_plugins = ["pytester"]


def test_only_a_verdict_of_passed_with_nothing_against_it_passes():
    assert passed("passed")
    assert passed("passed", statuses=("passed", "passed"))
    assert not passed("flagged")
    assert not passed("failed") and not passed("error") and not passed("timeout") and not passed("rejected")
    # A report that contradicts itself did not pass: a flag, a case that did not pass, a platform fault.
    assert not passed("passed", flags=1)
    assert not passed("passed", statuses=("passed", "failed"))
    assert not passed("passed", statuses=("skipped",))
    assert not passed("passed", platform_fault=True)


def test_a_report_passes_by_the_same_decision():
    report = RunReport(verdict="passed", cases=[CaseResult(id="a", kind="test", status="passed")])
    assert report.passed
    report.flags.append({"kind": "late-write", "message": "changed after done", "evidence": {}})
    assert not report.passed


def _write_at_sync(tmp_path: Path) -> Path:
    """The golden cheat whose cases all pass while the run is flagged (tests/runner/cheats/t05_write_at_sync.py)."""
    cheat = next(g for g in golden.cheating("vectoradd") if g.id.endswith("t05_write_at_sync.py"))
    path = tmp_path / "cheat.py"
    path.write_text(cheat.source)
    return path


@pytest.mark.judge
def test_a_flagged_run_whose_cases_all_passed_exits_1_on_the_command_line(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "runner", "run", "vectoradd", str(_write_at_sync(tmp_path))]
        + ["--mode", "test", "--sandbox", "none", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = RunReport.from_dict(__import__("json").loads(run.stdout))
    assert report.verdict == "flagged", report.message
    assert all(c.status == "passed" for c in report.cases), report.cases
    assert run.returncode == 1


@pytest.mark.judge
def test_a_flagged_run_fails_the_pytest_session_though_every_item_passed(pytester, tmp_path):
    result = pytester.runpytest_subprocess(
        "--problem", "vectoradd", "--submission", str(_write_at_sync(tmp_path)), "--sandbox", "none"
    )
    result.assert_outcomes(passed=4)  # every case's outputs were right at `done`
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*the run did not pass: flagged: *changed after custom_kernel signalled done*"]
    )


RAISES_LATER = """
_calls = 0
_honest = custom_kernel


def custom_kernel(data):
    global _calls
    _calls += 1
    if _calls > 40:  # past the warm-up, the probe and the first timed windows
        raise RuntimeError("gave up")
    return _honest(data)
"""


@pytest.mark.judge
def test_a_run_that_fails_inside_a_window_carries_no_late_write_flag():
    """The judge poisons a window's output slots before it runs; a call that raises inside that window once
    left the judge comparing its own poison with the previous window's snapshot: a false late-write."""
    report = execute(
        JobSpec(
            problem="vectoradd",
            source=golden.honest("vectoradd") + RAISES_LATER,
            mode="benchmark",
            device="cpu",
            sandbox="none",
            case_budget_s=0.2,
            call_s=60,
        )
    )
    assert report.verdict == "error" and "gave up" in report.message, report.message
    assert report.flags == [], report.flags
    assert not report.passed

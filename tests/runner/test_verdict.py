"""The verdict summary (runner/judge/verdict.py): a run's verdict, message and score from its cases."""

from pytest import approx

from runner.judge.verdict import summarize
from runner.spec import CaseResult, Stats


def timed(case_id: str, kind: str, median: float, status: str = "passed") -> CaseResult:
    stats = Stats(n=10, windows=5, mean=median, std=0.0, stderr=0.0, min=median, max=median, median=median)
    return CaseResult(id=case_id, kind=kind, status=status, stats=stats)


def test_a_run_stopped_early_keeps_the_stop_and_has_no_score():
    cases = [timed("p[a]", "benchmark", 1e-3)]
    assert summarize(stopped=("timeout", "too slow"), cases=cases, flags=[], mode="benchmark") == (
        "timeout",
        "too slow",
        None,
    )


def test_the_first_failing_case_names_the_reason_and_counts_the_others():
    cases = [
        CaseResult(id="p[a]", kind="test", status="passed"),
        CaseResult(id="p[b]", kind="test", status="failed", message="wrong output on call 0"),
        CaseResult(id="p[c]", kind="test", status="error", message="custom_kernel raised"),
    ]
    verdict, message, score_s = summarize(stopped=None, cases=cases, flags=[], mode="test")
    assert verdict == "failed" and score_s is None
    assert message == "p[b]: wrong output on call 0 (and 1 more failing case(s))"
    verdict, message, _ = summarize(stopped=None, cases=cases[2:], flags=[], mode="test")
    assert (verdict, message) == ("error", "p[c]: custom_kernel raised")


def test_the_score_is_the_scored_kinds_geometric_mean_or_the_problems_own_ranking():
    cases = [
        timed("p[a]", "benchmark", 1e-3),
        timed("p[b]", "benchmark", 4e-3),
        timed("p[a]", "secret", 2e-3),
        timed("p[b]", "secret", 8e-3),
    ]
    assert summarize(stopped=None, cases=cases, flags=[], mode="benchmark") == ("passed", "", approx(2e-3))
    assert summarize(stopped=None, cases=cases, flags=[], mode="leaderboard")[2] == approx(4e-3)
    assert summarize(stopped=None, cases=cases, flags=[], mode="leaderboard", ranking_by="last")[2] == 8e-3
    assert summarize(stopped=None, cases=cases, flags=[], mode="leaderboard", ranking_by="mean")[2] == approx(
        5e-3
    )
    untimed = [*cases[:3], CaseResult(id="p[b]", kind="secret", status="passed")]
    assert summarize(stopped=None, cases=untimed, flags=[], mode="leaderboard")[2] is None


def test_right_outputs_with_a_flag_are_flagged_with_its_message_and_keep_the_score_as_evidence():
    cases = [timed("p[a]", "benchmark", 1e-9)]
    flags = [{"kind": "floor", "message": "below the floor"}, {"kind": "late-write", "message": "later"}]
    assert summarize(stopped=None, cases=cases, flags=flags, mode="benchmark") == (
        "flagged",
        "below the floor",
        approx(1e-9),
    )

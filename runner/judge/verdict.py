"""A run's verdict, its one-line message and its score, from what its cases and flags say. Pure: no
process, no torch (tests/runner/test_verdict.py)."""

from __future__ import annotations

from typing import Any

from runner.judge.timing import score, score_interval
from runner.spec import CaseResult
from runner.vocabulary import CaseStatus, Mode, Verdict, scored_kind


def summarize(
    *,
    stopped: tuple[str, str] | None,
    cases: list[CaseResult],
    flags: list[dict[str, Any]],
    mode: str,
    ranking_by: str = "geom",
) -> tuple[str, str, float | None]:
    """(verdict, message, score_s).

    `stopped` is the verdict and message of a run that ended early (a Stop), else None. A run that went to
    its end passed unless a case failed or erred (the first one's reason is the message, with a count of
    the others); its score is the benchmark cases' (the secret run's in leaderboard mode) when each was
    timed; and right outputs with a flag are `flagged`, keeping their score as evidence but not ranked.
    """
    if stopped is not None:
        return stopped[0], stopped[1], None
    failed = [c for c in cases if c.status in (CaseStatus.FAILED, CaseStatus.ERROR)]
    if failed:
        verdict = Verdict.ERROR if failed[0].status == CaseStatus.ERROR else Verdict.FAILED
        message = f"{failed[0].id}: {failed[0].message}"
        if len(failed) > 1:
            message += f" (and {len(failed) - 1} more failing case(s))"
        return verdict, message, None
    scored = [c for c in cases if c.kind == scored_kind(mode)]
    medians = [c.stats.median for c in scored if c.stats and c.stats.median is not None]
    score_s = score(medians, ranking_by) if scored and len(medians) == len(scored) else None
    if mode == Mode.PROFILE:
        score_s = None  # its calls run under the profiler, untimed: a profile never has a score
    if flags:
        return Verdict.FLAGGED, flags[0]["message"], score_s
    return Verdict.PASSED, "", score_s


def uncertainty(
    cases: list[CaseResult], mode: str, ranking_by: str = "geom"
) -> tuple[float | None, float | None, str]:
    """The score's 95 % interval and its note in words (runner/judge/timing.py), from the scored cases'
    windows: the same cases `summarize` scores."""
    scored = [c for c in cases if c.kind == scored_kind(mode) and c.stats]
    return score_interval([c.stats.per_window for c in scored if c.stats], ranking_by)

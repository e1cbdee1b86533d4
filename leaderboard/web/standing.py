"""Where a finished leaderboard submission stands: the rank it reached on its problem and device kind, the
change against the author's best before it and against the leader, and its benchmark cases beside the
leader's. Reads through the selectors (the rankings' one place); the submission page includes
web/_standing.html with what standing_of returns."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.submissions.models import Mode, Submission
from leaderboard.submissions.selectors import RankingEntry, ranking_for_problem
from leaderboard.web.presentation import case_label
from leaderboard.web.selectors import benchmark_times, best_before, is_ranking_eligible


@dataclass(frozen=True)
class CaseComparison:
    case: str
    mine_s: float | None
    leader_s: float | None

    @property
    def ratio(self) -> float | None:
        """Mine over the leader's: below 1 is faster than the leader."""
        return self.mine_s / self.leader_s if self.mine_s and self.leader_s else None


@dataclass(frozen=True)
class Standing:
    rank: int  # the place this entry takes against every other user's best
    of: int  # entries in that ranking, this one included
    score_s: float
    previous: RankingEntry | None  # the author's best before this one
    leader: RankingEntry | None  # the best entry of another user (None when nobody else ranks): the leader,
    # or, where this entry leads, the runner-up (`rival`)
    cases: list[CaseComparison]

    @property
    def against_previous(self) -> float | None:
        return self.score_s / self.previous.score_s if self.previous else None

    @property
    def rival(self) -> str:
        """Who `leader` is to this entry, in words: the one it is compared with."""
        return "the runner-up" if self.rank == 1 else "the leader"

    @property
    def against_leader(self) -> float | None:
        return self.score_s / self.leader.score_s if self.leader else None


def _ahead(entry: RankingEntry, submission: Submission, score_s: float) -> bool:
    """Whether `entry` ranks before the submission: a lower score, or the same and made earlier."""
    return (entry.score_s, entry.submitted_at, entry.submission_id) < (
        score_s,
        submission.created_at,
        submission.pk,
    )


def standing_of(submission: Submission) -> Standing | None:
    """The submission's standing, or None unless it is a finished leaderboard entry that may rank."""
    run = getattr(submission, "run", None)
    if submission.mode != Mode.LEADERBOARD or run is None or not is_ranking_eligible(submission=submission):
        return None
    ranking = ranking_for_problem(
        problem=submission.problem_version.problem, device_kind=submission.device_kind
    )
    others = [e for e in ranking if e.username != submission.user.username]
    score = run.score_s
    leader = others[0] if others else None
    times = benchmark_times(submission_ids=[submission.pk] + ([leader.submission_id] if leader else []))
    mine = times[submission.pk]
    theirs = times.get(leader.submission_id, {}) if leader else {}
    cases = [
        CaseComparison(case_label(c), mine.get(c), theirs.get(c)) for c in dict.fromkeys([*mine, *theirs])
    ]
    return Standing(
        rank=1 + sum(_ahead(e, submission, score) for e in others),
        of=len(others) + 1,
        score_s=score,
        previous=best_before(submission=submission),
        leader=leader,
        cases=cases,
    )

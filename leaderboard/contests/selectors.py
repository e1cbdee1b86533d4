"""Reads of contests: the board (live from the rankings' one place while it runs, the stored final board
once frozen), what a problem's page, a user's page and a submission's page say about contests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import F, Q

from leaderboard.contests.models import Contest, FinalEntry, Phase
from leaderboard.errors import NotFound
from leaderboard.problems.models import Problem
from leaderboard.submissions.models import FINAL_STATES, DeviceKind, Mode, Submission
from leaderboard.submissions.selectors import RankingEntry, ranking_eligible, ranking_for_problem

RECENT = timedelta(days=7)  # how long a problem's page still points at a contest that ended


def contest_get(*, name: str) -> Contest:
    contest = Contest.objects.filter(name=name).prefetch_related("problems").first()
    if contest is None:
        raise NotFound(f"There is no contest {name!r}.")
    return contest


def contest_list() -> list[Contest]:
    """Every contest, the latest to start first."""
    return list(Contest.objects.prefetch_related("problems"))


def _made_in(contest: Contest) -> Q:
    return Q(created_at__gte=contest.starts_at, created_at__lt=contest.ends_at)


def contest_pending(*, contest: Contest) -> int:
    """Leaderboard-mode submissions made in the contest, on its problems, that have no verdict yet, or
    whose verdict waits on its second judging (a leader judged again: leaderboard.submissions)."""
    return (
        Submission.objects.filter(_made_in(contest), problem_version__problem__in=contest.problems.all())
        .filter(mode=Mode.LEADERBOARD, confirms__isnull=True)
        .filter(~Q(state__in=FINAL_STATES) | Q(confirmation="pending"))
        .count()
    )


def _kinds(problem: Problem, **window) -> list[str]:
    """The device kinds with an eligible entry in the window, in the platform's order of kinds."""
    found = set(ranking_eligible(problem=problem, **window).order_by().values_list("device_kind", flat=True))
    return [kind.value for kind in DeviceKind if kind.value in found]


def live_rankings(*, contest: Contest) -> list[tuple[Problem, str, list[RankingEntry]]]:
    """Each problem's ranking, per device kind with entries, of the submissions made in the contest: the
    rankings' own selector bounded to the contest's window (what the final board stores)."""
    window = {"made_from": contest.starts_at, "made_before": contest.ends_at}
    return [
        (problem, kind, ranking_for_problem(problem=problem, device_kind=kind, **window))
        for problem in contest.problems.all()
        for kind in _kinds(problem, **window)
    ]


def _after(contest: Contest) -> list[tuple[Problem, str, list[RankingEntry]]]:
    """Each user's best entry made after the contest ended, per problem and device kind: shown beside the
    final board, unranked in it."""
    return [
        (problem, kind, ranking_for_problem(problem=problem, device_kind=kind, made_from=contest.ends_at))
        for problem in contest.problems.all()
        for kind in _kinds(problem, made_from=contest.ends_at)
    ]


def _final_rankings(contest: Contest) -> list[tuple[Problem, str, list[RankingEntry]]]:
    groups: dict[tuple[int, str], tuple[Problem, str, list[RankingEntry]]] = {}
    for f in FinalEntry.objects.filter(contest=contest).select_related("problem"):
        group = groups.setdefault((f.problem_id, f.device_kind), (f.problem, f.device_kind, []))
        group[2].append(
            RankingEntry(
                f.rank,
                f.username,
                f.is_agent,
                f.score_s,
                f.submission_id,
                f.language,
                f.submitted_at,
                f.score_low_s,
                f.score_high_s,
                tuple(f.tied_with),
            )
        )
    return list(groups.values())


@dataclass(frozen=True)
class ProblemBoard:
    problem: Problem
    rankings: list[tuple[str, str, list[RankingEntry]]]  # (device kind, its label, entries)


@dataclass(frozen=True)
class ContestBoard:
    contest: Contest
    phase: Phase
    pending: int  # submissions made in it still waiting for a verdict (while it is not final)
    boards: list[ProblemBoard]  # in the contest, per problem
    after: list[ProblemBoard]  # made after the end: judged and shown, unranked in the contest


def _by_problem(contest: Contest, rankings) -> list[ProblemBoard]:
    """The rankings grouped by problem, in the contest's order of problems and the platform's of kinds."""
    labels = dict(DeviceKind.choices)
    order = {kind: i for i, kind in enumerate(labels)}
    rankings = sorted(rankings, key=lambda r: order.get(r[1], len(order)))
    return [
        ProblemBoard(p, [(kind, labels.get(kind, kind), e) for q, kind, e in rankings if q.pk == p.pk])
        for p in contest.problems.all()
    ]


def contest_board(*, contest: Contest, now: datetime) -> ContestBoard:
    """The contest's board: nothing before it starts; live while it runs and while the last submissions
    made in it are judged; the stored final board once frozen, beside the entries made after the end."""
    phase = contest.phase(now)
    if phase == Phase.UPCOMING:
        return ContestBoard(contest, phase, 0, _by_problem(contest, []), [])
    final = phase == Phase.FINAL
    rankings = _final_rankings(contest) if final else live_rankings(contest=contest)
    after = [b for b in _by_problem(contest, _after(contest)) if b.rankings] if now >= contest.ends_at else []
    pending = 0 if final else contest_pending(contest=contest)
    return ContestBoard(contest, phase, pending, _by_problem(contest, rankings), after)


def contests_of_problem(*, problem: Problem, now: datetime) -> list[Contest]:
    """The contests over the problem that a page of it should mention: upcoming, running, being judged,
    or ended within RECENT."""
    return list(problem.contests.filter(ends_at__gt=now - RECENT).order_by("ends_at"))


@dataclass(frozen=True)
class HistoryLine:
    contest: Contest
    phase: Phase
    problem: Problem | None  # None: took part, no ranked entry
    device_kind: str
    rank: int
    of: int
    score_s: float | None
    submission_id: int | None


def contest_history(*, user, now: datetime) -> list[HistoryLine]:
    """The contests the user took part in (a leaderboard-mode submission made in one, on its problems),
    latest first, with their place on each board: the final board's, or the live one's while it runs."""
    made_in_it = Q(
        problems__versions__submissions__user=user,
        problems__versions__submissions__mode=Mode.LEADERBOARD,
        problems__versions__submissions__created_at__gte=F("starts_at"),
        problems__versions__submissions__created_at__lt=F("ends_at"),
    )
    contests = Contest.objects.filter(made_in_it, starts_at__lte=now).distinct().prefetch_related("problems")
    lines: list[HistoryLine] = []
    for contest in contests:
        phase = contest.phase(now)
        rankings = _final_rankings(contest) if phase == Phase.FINAL else live_rankings(contest=contest)
        mine = [
            HistoryLine(contest, phase, p, kind, e.rank, len(entries), e.score_s, e.submission_id)
            for p, kind, entries in rankings
            for e in entries
            if e.username == user.username
        ]
        lines += mine or [HistoryLine(contest, phase, None, "", 0, 0, None, None)]
    return lines


@dataclass(frozen=True)
class SubmissionInContest:
    contest: Contest
    phase: Phase
    ranked_in_it: bool  # made in it; otherwise made after it ended: judged, shown, unranked in it


def contests_of_submission(*, submission: Submission, now: datetime) -> list[SubmissionInContest]:
    """The contests over a leaderboard-mode submission's problem that had started when it was made, and
    whether it was made in each or after it ended."""
    if submission.mode != Mode.LEADERBOARD:
        return []
    contests = Contest.objects.filter(
        problems=submission.problem_version.problem_id, starts_at__lte=submission.created_at
    )
    return [SubmissionInContest(c, c.phase(now), submission.created_at < c.ends_at) for c in contests]

"""Reads that only the pages need. Rankings and their eligibility come from the platform's one place,
leaderboard.submissions.selectors (ranking_for_problem, ranking_eligible); nothing here filters for
eligibility by itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.apps import apps
from django.core.cache import cache
from django.db.models import Count, F, Max, Min, Q, QuerySet, Window

from leaderboard.errors import NotFound
from leaderboard.problems.models import Problem
from leaderboard.problems.selectors import problem_list
from leaderboard.submissions.models import DeviceKind, Mode, Run, RunCase, State, Submission
from leaderboard.submissions.selectors import (
    ENTRY_FIELDS,
    RankingEntry,
    ranking_eligible,
    ranking_for_problem,
    rankings_generation,
)
from runner.judge.timing import geometric_mean
from runner.vocabulary import DEVICE_KINDS, CaseKind, case_plan, judged_as


@dataclass(frozen=True)
class DeviceBest:
    device_kind: str
    label: str
    best_s: float
    entrants: int


def device_bests(*, problem: Problem) -> list[DeviceBest]:
    """Each device kind's best score and number of ranked users, in the platform's order of kinds."""
    rows = (
        ranking_eligible(problem=problem)
        .order_by()
        .values("device_kind")
        .annotate(best=Min("run__score_s"), entrants=Count("user", distinct=True))
    )
    found = {r["device_kind"]: r for r in rows}
    return [
        DeviceBest(kind.value, kind.label, found[kind.value]["best"], found[kind.value]["entrants"])
        for kind in DeviceKind
        if kind.value in found
    ]


RANKING_ROWS = 25  # entries of each device kind on a problem page; ?device=KIND shows all of one kind
BOARD_TTL_S = 10.0


@dataclass(frozen=True)
class Board:
    """A problem's standings as its pages show them: for each device kind with entries its best score,
    its number of entrants and its first RANKING_ROWS entries; the steps of the best score over time.
    `key` names this state of the standings: pages cache what they render from a Board under it."""

    key: str
    bests: list[DeviceBest]
    rankings: dict[str, list[RankingEntry]]
    history: dict[str, list[tuple[datetime, float, str]]]  # (when, best score, its holder)


def problem_board(*, problem: Problem) -> Board:
    """The problem's Board, computed once per change of the judged runs and kept in the cache.

    The key holds the newest run's id (one index lookup), so a finished run is on the pages at once; staff
    decisions made through leaderboard.submissions.review start a new generation; anything else that changes
    eligibility behind the services' back (an admin editing a row, a user deactivated) shows within
    BOARD_TTL_S. The cache is shared by every web process (settings.CACHES), so a new generation reaches
    them all at once."""
    newest_run = Run.objects.aggregate(newest=Max("id"))["newest"] or 0
    key = f"web:board:{problem.pk}:{problem.current_version_id}:{newest_run}:{rankings_generation()}"
    board = cache.get(key)
    if board is None:
        board = _compute_board(problem, key)
        cache.set(key, board, BOARD_TTL_S)
    return board


def _compute_board(problem: Problem, key: str) -> Board:
    bests = device_bests(problem=problem)
    rankings = {
        b.device_kind: ranking_for_problem(problem=problem, device_kind=b.device_kind, limit=RANKING_ROWS)
        for b in bests
    }
    return Board(key, bests, rankings, record_history(problem=problem) if bests else {})


def problem_summaries() -> list[tuple[Problem, Board, int]]:
    """The open problems, each with its Board (best score and entrants per device kind) and its number of
    ranked users over every device kind (cached with the Board's key)."""
    summaries = []
    for problem in problem_list():
        board = problem_board(problem=problem)
        entrants = cache.get(board.key + ":entrants")
        if entrants is None:
            entrants = ranking_eligible(problem=problem).order_by().values("user_id").distinct().count()
            cache.set(board.key + ":entrants", entrants, BOARD_TTL_S)
        summaries.append((problem, board, entrants))
    return summaries


def record_history(*, problem: Problem) -> dict[str, list[tuple[datetime, float, str]]]:
    """Per device kind, the eligible submissions that set (or equalled) the best score so far, in time
    order, with who set them: the steps of the best score over time. The database keeps the running minimum, so only the
    record-setting rows come back, however many submissions there are."""
    order = [F("created_at").asc(), F("id").asc()]
    rows = (
        ranking_eligible(problem=problem)
        .annotate(best_so_far=Window(Min("run__score_s"), partition_by=[F("device_kind")], order_by=order))
        .filter(run__score_s=F("best_so_far"))
        .order_by("device_kind", *order)
        .values_list("device_kind", "created_at", "run__score_s", "user__username")
    )
    history: dict[str, list[tuple[datetime, float, str]]] = {}
    for kind, when, score, username in rows:
        points = history.setdefault(kind, [])
        if not points or score < points[-1][1]:
            points.append((when, score, username))
    return history


def submission_for_page(*, submission_id: int) -> Submission:
    """A submission with what its page shows, but not its source (sources load only where visible)."""
    submission = (
        Submission.objects.select_related("user", "problem_version__problem", "run")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None:
        raise NotFound(f"There is no submission #{submission_id}.")
    return submission


def run_of(submission: Submission):
    """The submission's run, or None while it is queued or running."""
    try:
        return submission.run
    except Submission.run.RelatedObjectDoesNotExist:
        return None


def case_counts(*, submission: Submission) -> dict[str, int]:
    """How many cases of each kind the submission's mode runs (what its run will report)."""
    device = DEVICE_KINDS[submission.device_kind].runner_device
    cases = submission.problem_version.cases.get(device, {})
    return {
        str(kind): len(cases.get(CaseKind.BENCHMARK if kind == CaseKind.SECRET else kind, []))
        for kind in case_plan(judged_as(submission.mode))
    }


def agent_run_of(*, submission: Submission):
    """The agent run that entered this submission, when the agent-run app is installed and one did."""
    if not apps.is_installed("leaderboard.agentruns"):
        return None
    AgentRun = apps.get_model("agentruns", "AgentRun")
    return AgentRun.objects.filter(submission_id=submission.pk).order_by("-pk").first()


def user_submissions(*, user, viewer) -> QuerySet[Submission]:
    """A user's submissions as `viewer` may see them: all of them for the user and staff, the ranked
    (leaderboard-mode) ones for everyone else."""
    submissions = Submission.objects.filter(user=user).select_related("problem_version__problem", "run")
    if not (viewer.is_authenticated and (viewer.is_staff or viewer.pk == user.pk)):
        submissions = submissions.filter(mode=Mode.LEADERBOARD)
    return submissions.order_by("-created_at", "-id")


@dataclass(frozen=True)
class BestEntry:
    problem: Problem
    device_kind: str
    entry: RankingEntry
    of: int  # entries in that ranking


def user_best_entries(*, user) -> list[BestEntry]:
    """The user's place in each ranking they are in (from the rankings selector)."""
    pairs = (
        Submission.objects.filter(
            user=user,
            mode=Mode.LEADERBOARD,
            state=State.PASSED,
            problem_version_id=F("problem_version__problem__current_version_id"),
        )
        .order_by()
        .values_list("problem_version__problem_id", "device_kind")
        .distinct()
    )
    problems = {p.pk: p for p in Problem.objects.select_related("current_version")}
    found = []
    for problem_id, kind in sorted(pairs, key=lambda pair: (problems[pair[0]].name, pair[1])):
        ranking = ranking_for_problem(problem=problems[problem_id], device_kind=kind)
        mine = next((e for e in ranking if e.username == user.username), None)
        if mine is not None:
            found.append(BestEntry(problems[problem_id], kind, mine, len(ranking)))
    return found


def benchmark_times(*, submission_ids: list[int]) -> dict[int, dict[str, float]]:
    """The median time per call of each public benchmark case (the figure a score is made of), per
    submission: {id: {case_id: median_s}}, from the run its rank uses (scored_runs): a leader that ranks
    on its slower judging shows that judging's times beside its score, not its first (faster) draw's."""
    times: dict[int, dict[str, float]] = {sid: {} for sid in submission_ids}
    of_run: dict[int, list[int]] = {}  # a copy and its source may rank on one judging
    for sid, run_id in scored_runs(submission_ids=submission_ids).items():
        of_run.setdefault(run_id, []).append(sid)
    rows = (
        RunCase.objects.filter(run_id__in=list(of_run), kind=CaseKind.BENCHMARK, median_s__gt=0)
        .order_by("position")
        .values_list("run_id", "case_id", "median_s")
    )
    for run_id, case_id, median_s in rows:
        for sid in of_run[run_id]:
            times[sid][case_id] = median_s
    return times


def scored_runs(*, submission_ids: list[int]) -> dict[int, int]:
    """Per submission, the run its rank uses: its own, or, where it ranks on another judging of the same
    source (a leader on the slower of its two secret runs, a copy no faster than its source's judgings:
    leaderboard.submissions.services), that judging's run, the one whose own score is the ranked score."""
    rows = Run.objects.filter(submission_id__in=submission_ids).values_list(
        "submission_id",
        "id",
        "score_s",
        "report__score_s",
        "submission__user_id",
        "submission__problem_version_id",
        "submission__device_kind",
        "submission__source__sha256",
    )
    scored = {}
    for sid, run_id, score_s, own_s, user_id, version_id, kind, sha256 in rows:
        scored[sid] = run_id
        if score_s is None or own_s == score_s:
            continue
        others = Run.objects.filter(
            submission__user_id=user_id,
            submission__problem_version_id=version_id,
            submission__device_kind=kind,
            submission__source__sha256=sha256,
            score_s=score_s,
        ).values_list("id", "report__score_s")
        scored[sid] = next((other for other, other_s in others if other_s == score_s), run_id)
    return scored


def scored_rates(*, submission_ids: list[int]) -> dict[int, tuple[float | None, float | None]]:
    """Per ranked submission, its FLOP/s and bytes/s as its score is made: the geometric mean, over the
    secret cases of the run its rank uses (scored_runs), of each case's rate (the runner's: the case's
    counts over its median). (None, None) where the problem has no counts."""
    runs = scored_runs(submission_ids=submission_ids)
    found: dict[int, tuple[list[float], list[float]]] = {run_id: ([], []) for run_id in runs.values()}
    rows = RunCase.objects.filter(run_id__in=list(found), kind=CaseKind.SECRET).values_list("run_id", "stats")
    for run_id, stats in rows:
        for rates, key in zip(found[run_id], ("flops_per_s", "bytes_per_s"), strict=True):
            value = (stats or {}).get(key)
            if isinstance(value, int | float) and value > 0:
                rates.append(value)
    flops_bytes = {run_id: (geometric_mean(f), geometric_mean(b)) for run_id, (f, b) in found.items()}
    return {sid: flops_bytes[runs[sid]] if sid in runs else (None, None) for sid in submission_ids}


def best_before(*, submission: Submission) -> RankingEntry | None:
    """The user's best eligible entry on the submission's problem version and device kind among those made
    before it (what this one is compared with); None for a first entry."""
    earlier = (
        ranking_eligible(problem=submission.problem_version.problem, device_kind=submission.device_kind)
        .filter(user_id=submission.user_id, problem_version_id=submission.problem_version_id)
        .filter(
            Q(created_at__lt=submission.created_at)
            | Q(created_at=submission.created_at, id__lt=submission.id)
        )
        .order_by("run__score_s", "created_at", "id")
        .values_list(*ENTRY_FIELDS)
        .first()
    )
    return RankingEntry(0, *earlier) if earlier else None


def is_ranking_eligible(*, submission: Submission) -> bool:
    problem = submission.problem_version.problem
    return (
        ranking_eligible(problem=problem, device_kind=submission.device_kind)
        .filter(pk=submission.pk)
        .exists()
    )


def user_problem_submissions(*, user, problem: Problem, limit: int = 50) -> list[Submission]:
    """The user's newest submissions of a problem (any mode, any version), for the problem page's tab."""
    return list(
        Submission.objects.filter(user=user, problem_version__problem=problem)
        .select_related("run")
        .order_by("-created_at", "-id")[:limit]
    )

"""Reads of submissions and the one place that computes rankings."""

from __future__ import annotations

import dataclasses
import statistics
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from leaderboard.errors import NotFound
from leaderboard.problems.models import Problem
from leaderboard.submissions.models import Mode, Source, State, Submission, Worker
from runner.report import format_progress, format_time
from runner.vocabulary import DEVICE_KINDS, EXPLORE, judging_queue


def tier_modes(mode: str) -> tuple[str, ...]:
    """The modes that share a submission's queues: explore alone, or every other mode."""
    if mode == EXPLORE:
        return (EXPLORE,)
    return tuple(m for m in Mode.values if m != EXPLORE)


@dataclass(frozen=True)
class RankingEntry:
    rank: int
    username: str
    is_agent: bool
    score_s: float
    submission_id: int
    language: str
    submitted_at: datetime
    score_low_s: float | None = None  # the score's 95 % interval (runner/judge/timing.py)
    score_high_s: float | None = None
    tied_with: tuple[str, ...] = ()  # the users sharing this rank whose intervals overlap this one's

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % interval; a run judged before intervals were kept is its score alone."""
        if self.score_low_s is None or self.score_high_s is None:
            return self.score_s, self.score_s
        return min(self.score_low_s, self.score_s), max(self.score_high_s, self.score_s)


# A RankingEntry's columns after its rank, in its fields' order: what a ranking query reads of each row.
ENTRY_FIELDS = (
    "user__username",
    "user__is_agent",
    "run__score_s",
    "id",
    "language",
    "created_at",
    "run__score_low_s",
    "run__score_high_s",
)


def ranked(rows: list[RankingEntry]) -> list[RankingEntry]:
    """Ranks within noise, for `rows` in score order: an entry's rank is one more than the number of
    entries faster beyond doubt (their whole 95 % interval below its own), so entries whose intervals
    overlap share a rank, and each names those it is tied with. Nobody is ranked above someone they did
    not measurably beat."""
    out = []
    for row in rows:
        low, high = row.interval
        rank = 1 + sum(other.interval[1] < low for other in rows)
        out.append((row, rank))
    return [
        dataclasses.replace(
            row,
            rank=rank,
            tied_with=tuple(
                o.username
                for o, r in out
                if r == rank
                and o is not row
                and o.interval[0] <= row.interval[1]
                and row.interval[0] <= o.interval[1]
            ),
        )
        for row, rank in out
    ]


def ranking_eligible(
    *,
    problem: Problem,
    device_kind: str | None = None,
    made_from: datetime | None = None,
    made_before: datetime | None = None,
) -> QuerySet[Submission]:
    """The submissions of `problem`'s current version that may rank (on `device_kind`, or on any kind when
    None): every eligibility filter is here. A leaderboard-mode submission that passed, whose run passed
    its public cases and its secret run, and is not flagged, by an active user; made at or after
    `made_from` and before `made_before` where given (a contest's window, leaderboard.contests)."""
    eligible = Submission.objects.filter(
        problem_version_id=problem.current_version_id,
        mode=Mode.LEADERBOARD,
        state=State.PASSED,
        run__verdict=State.PASSED,
        run__public_passed=True,
        run__secret_passed=True,
        run__flagged=False,
        run__score_s__gt=0,
        user__is_active=True,
        confirms__isnull=True,  # a second judging ranks through the first
        confirmation__in=("", "confirmed"),  # a leader ranks once its second judging agreed
    )
    if device_kind is not None:
        eligible = eligible.filter(device_kind=device_kind)
    if made_from is not None:
        eligible = eligible.filter(created_at__gte=made_from)
    if made_before is not None:
        eligible = eligible.filter(created_at__lt=made_before)
    return eligible


def ranking_for_problem(
    *,
    problem: Problem,
    device_kind: str,
    limit: int | None = None,
    made_from: datetime | None = None,
    made_before: datetime | None = None,
) -> list[RankingEntry]:
    """The ranking of `problem`'s current version on `device_kind`, from the eligible submissions
    (ranking_eligible; `made_from` and `made_before` bound when they were made). Each user's best entry
    counts (agents and people alike, agents marked); the lower score is listed first (an equal one: the
    earlier submission), and entries whose 95 % intervals overlap share a rank (`ranked`).
    """
    order = [F("run__score_s").asc(), F("created_at").asc(), F("id").asc()]
    eligible = ranking_eligible(
        problem=problem, device_kind=device_kind, made_from=made_from, made_before=made_before
    )
    best = (
        eligible.annotate(place_of_user=Window(RowNumber(), partition_by=[F("user_id")], order_by=order))
        .filter(place_of_user=1)
        .order_by(*order)
        .values_list(*ENTRY_FIELDS)
    )
    if limit is not None:
        best = best[:limit]
    return ranked([RankingEntry(place, *row) for place, row in enumerate(best, start=1)])


def submission_for_user(*, user, submission_id: int) -> Submission:
    """The user's own submission with its run and cases; another user's is as absent as a missing one."""
    submission = (
        Submission.objects.select_related("problem_version__problem", "source", "run")
        .filter(pk=submission_id, user=user)
        .first()
    )
    if submission is None:
        raise NotFound(f"You have no submission #{submission_id}.")
    return submission


def submission_for_author_or_staff(*, user, submission_id: int) -> Submission:
    """The user's own submission, or anyone's for staff (what a profile's CSV needs, as on the site);
    for anyone else as absent as a missing one, in the words of submission_for_user."""
    if not user.is_staff:
        return submission_for_user(user=user, submission_id=submission_id)
    submission = Submission.objects.select_related("run").filter(pk=submission_id).first()
    if submission is None:
        raise NotFound(f"There is no submission #{submission_id}.")
    return submission


def submission_list_for_user(*, user, problem: str | None = None) -> QuerySet[Submission]:
    submissions = Submission.objects.filter(user=user).select_related("problem_version__problem", "run")
    if problem:
        submissions = submissions.filter(problem_version__problem__name=problem)
    return submissions.order_by("-created_at", "-id")


def submission_queue_position(*, submission: Submission) -> int | None:
    """1 for the next one its device kind's workers take: queued submissions of that kind made before it,
    plus one. An estimate (a submission queued again after a lost worker waits behind newer ones); None
    when it is not queued."""
    if submission.state != State.QUEUED:
        return None
    # Its own queue's: a ranked submission never counts exploration candidates ahead of it, nor a candidate
    # the ranked ones (docs/platform.md, "The exploration tier").
    ahead = Submission.objects.filter(
        state=State.QUEUED, device_kind=submission.device_kind, mode__in=tier_modes(submission.mode)
    ).filter(
        Q(created_at__lt=submission.created_at) | Q(created_at=submission.created_at, id__lt=submission.id)
    )
    return ahead.count() + 1


def live_progress(submission: Submission) -> dict | None:
    """The judge's last finished case while the submission runs (the row's progress: "done", "total",
    "case", "status", "kind", "kind_done", "kind_total", "median_s"), with its median as "time" and the
    whole as "words" ("benchmark 3 of 5 passed · vectoradd[size=256] · 12.3 us"); None when it is not
    running or no case has finished yet. Once final, its run's cases say the rest."""
    if submission.state != State.RUNNING or not submission.progress:
        return None
    row = submission.progress
    # A row written before the phases were sent counts in the whole run: "case 5 of 12".
    progress = {"kind": "", "kind_done": row["done"], "kind_total": row["total"], "median_s": None} | row
    median = progress["median_s"]
    return progress | {
        "time": format_time(median) if median is not None else "",
        "words": format_progress(progress),
    }


@dataclass(frozen=True)
class QueueWait:
    """What a queued submission waits for, and roughly how long."""

    waiting_ahead: int  # queued submissions of its device kind that go first
    running: int  # submissions of its device kind being judged now
    typical_run_s: float | None  # the median judging time of recent runs of its problem and mode there
    estimate_s: float | None  # until a worker takes it: the work ahead shared among the kind's workers


RECENT_RUNS = 25  # finished submissions of a problem and mode that the estimate of a run's time reads


def typical_run_seconds(*, submission: Submission) -> float | None:
    """The median judging time of the recent finished submissions of the same problem, mode and device
    kind; None before there is any."""
    recent = (
        Submission.objects.filter(
            problem_version__problem_id=submission.problem_version.problem_id,
            mode=submission.mode,
            device_kind=submission.device_kind,
            started_at__isnull=False,
            finished_at__isnull=False,
        )
        .exclude(state=State.CANCELLED)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_RUNS]
    )
    durations = [(end - start).total_seconds() for start, end in recent if end >= start]
    return statistics.median(durations) if durations else None


def submission_queue_wait(*, submission: Submission) -> QueueWait | None:
    """The wait of a queued submission (None when it is not queued). An estimate: each job ahead, queued
    or running, is taken to cost the typical run of this submission's problem and mode, and the kind's
    workers (those judging now, at least one) to share them."""
    position = submission_queue_position(submission=submission)
    if position is None:
        return None
    running = Submission.objects.filter(state=State.RUNNING, device_kind=submission.device_kind)
    workers = max(1, running.values("worker").distinct().count())
    typical = typical_run_seconds(submission=submission)
    ahead = position - 1
    estimate = None if typical is None else typical * (ahead + running.count()) / workers
    return QueueWait(ahead, running.count(), typical, estimate)


def _workers_by_kind(now: datetime) -> tuple[dict[str, list[str]], dict[str, datetime]]:
    """The workers serving each device kind now (those that beat within WORKER_STALE_AFTER_S and have not
    stopped), and the last time any worker of each kind was seen."""
    fresh_after = now - timedelta(seconds=settings.WORKER_STALE_AFTER_S)
    serving: dict[str, list[str]] = {kind: [] for kind in DEVICE_KINDS}
    last_seen: dict[str, datetime] = {}
    for name, kinds, beat_at, stopped_at in Worker.objects.values_list(
        "name", "device_kinds", "beat_at", "stopped_at"
    ):
        for kind in filter(None, kinds.split(",")):
            seen = stopped_at or beat_at
            last_seen[kind] = max(last_seen.get(kind, seen), seen)
            if stopped_at is None and beat_at >= fresh_after:
                serving.setdefault(kind, []).append(name)
    return serving, last_seen


def served_device_kinds(*, now: datetime | None = None) -> set[str]:
    """The device kinds at least one worker serves now (from the workers' own records: one query)."""
    serving, _ = _workers_by_kind(now or timezone.now())
    return {kind for kind, names in serving.items() if names}


def device_kind_last_seen(*, now: datetime | None = None) -> dict[str, datetime]:
    """When a worker of each device kind was last seen (its last beat, or its clean stop)."""
    return _workers_by_kind(now or timezone.now())[1]


@dataclass(frozen=True)
class DeviceKindStatus:
    """Whether a device kind can judge now, and roughly how long a new submission there would wait."""

    kind: str
    label: str
    workers: list[str]  # the workers serving it now
    queued: int
    running: int
    typical_run_s: float | None  # the median judging time of its recent runs, any problem and mode
    wait_estimate_s: float | None  # before a new submission starts: the work ahead shared by the workers
    explore_workers: list[str] = dataclasses.field(default_factory=list)  # serving its exploration queue
    explore_queued: int = 0  # exploration candidates queued (on their own queue: not in `queued`)

    @property
    def served(self) -> bool:
        return bool(self.workers)

    def words(self) -> str:
        """The status in a phrase, as the submit form and the command line show it."""
        if not self.served:
            if settings.SUBMISSION_REFUSE_UNSERVED:
                return "no worker now: submissions are refused"
            return "no worker now: a submission waits until one starts"
        workers = f"{len(self.workers)} worker{'s' if len(self.workers) != 1 else ''}"
        ahead = self.queued + self.running
        if ahead < len(self.workers):
            return f"{workers}, free: a submission starts at once"
        load = f"{self.queued} queued, {self.running} running"
        if self.wait_estimate_s is None:
            return f"{workers}, {load}"
        return f"{workers}, {load}: about {_wait_words(self.wait_estimate_s)} before a new one starts"


def _wait_words(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def device_kind_statuses(*, now: datetime | None = None) -> list[DeviceKindStatus]:
    """Every device kind, in the vocabulary's order: its workers now, its queue, and the expected wait."""
    now = now or timezone.now()
    serving, _ = _workers_by_kind(now)
    # A ranked submission waits for the ranked ones queued ahead and for what the workers run now, whatever
    # its tier (a worker takes the ranked ones before its next candidate: docs/platform.md, "The
    # exploration tier"); candidates are counted on their own.
    counts = {
        (row["device_kind"], row["state"], row["mode"] == EXPLORE): row["n"]
        for row in Submission.objects.filter(state__in=(State.QUEUED, State.RUNNING))
        .values("device_kind", "state", "mode")
        .annotate(n=Count("id"))
    }

    def count(kind: str, state: str, explore: bool | None = None) -> int:
        return sum(n for (k, s, e), n in counts.items() if k == kind and s == state and explore in (None, e))

    statuses = []
    for kind, device in DEVICE_KINDS.items():
        workers = sorted(serving.get(kind, []))
        queued, running = count(kind, State.QUEUED, False), count(kind, State.RUNNING)
        typical = estimate = None
        if workers and queued + running >= len(workers):
            typical = _typical_run_of_kind(kind)
            if typical is not None:
                # The jobs ahead, shared by the workers; the one a worker runs now is half done on average.
                estimate = typical * (queued + running / 2) / len(workers)
        statuses.append(
            DeviceKindStatus(
                kind,
                device.label,
                workers,
                queued,
                running,
                typical,
                estimate,
                explore_workers=sorted(serving.get(judging_queue(kind, EXPLORE), [])),
                explore_queued=count(kind, State.QUEUED, True),
            )
        )
    return statuses


def _typical_run_of_kind(kind: str) -> float | None:
    recent = (
        Submission.objects.filter(device_kind=kind, started_at__isnull=False, finished_at__isnull=False)
        .exclude(state=State.CANCELLED)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_RUNS]
    )
    durations = [(end - start).total_seconds() for start, end in recent if end >= start]
    return statistics.median(durations) if durations else None


_RANKINGS_GENERATION_KEY = "submissions:rankings:generation"


def rankings_generation() -> int:
    """Changes whenever a decision changes who ranks without a new run (a review, a rejudge): part of the
    key under which pages cache the standings."""
    return cache.get(_RANKINGS_GENERATION_KEY, 0)


def rankings_changed() -> None:
    """Start a new generation of the rankings: pages recompute their standings on the next view."""
    cache.set(_RANKINGS_GENERATION_KEY, time.time_ns(), None)


def source_of(*, submission: Submission) -> Source:
    """The submission's source text (listing submissions never loads it; one page does)."""
    return Source.objects.get(pk=submission.source_id)

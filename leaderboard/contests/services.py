"""Writes of contests: creating one, and freezing its final board (once, by a compare-and-set)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from leaderboard.contests.models import Contest, FinalEntry
from leaderboard.contests.selectors import contest_pending, live_rankings
from leaderboard.errors import Refusal
from leaderboard.problems.models import Problem
from leaderboard.submissions.models import Submission


def contest_create(
    *,
    name: str,
    title: str,
    problems: list[Problem],
    starts_at: datetime,
    ends_at: datetime,
    description: str = "",
    judging_grace: timedelta | None = None,
) -> Contest:
    """A new contest over `problems` from `starts_at` to `ends_at`."""
    if not problems:
        raise Refusal("A contest needs at least one problem.")
    if ends_at <= starts_at:
        raise Refusal(f"The contest would end ({ends_at:%Y-%m-%d %H:%M} UTC) before it starts.")
    if Contest.objects.filter(name=name).exists():
        raise Refusal(f"There is already a contest named {name!r}.")
    extra = {} if judging_grace is None else {"judging_grace": judging_grace}
    with transaction.atomic():
        contest = Contest.objects.create(
            name=name, title=title, description=description, starts_at=starts_at, ends_at=ends_at, **extra
        )
        contest.problems.set(problems)
    return contest


def contest_is_due(contest: Contest, *, now: datetime) -> bool:
    """Whether the contest's board may be frozen now: it has ended, and every leaderboard submission made
    in it has its verdict, or the judging grace has run out."""
    if contest.frozen_at is not None or now < contest.ends_at:
        return False
    return now >= contest.grace_ends_at or contest_pending(contest=contest) == 0


def contest_freeze(*, contest: Contest, now: datetime | None = None) -> bool:
    """Store the contest's final board, once it is due (contest_is_due): each problem's and device kind's
    ranking of the submissions made in the contest, as it stands now. True when this call froze it; a
    second caller (another web process, the command) finds it frozen and stores nothing."""
    now = now or timezone.now()
    if not contest_is_due(contest, now=now):
        return False
    with transaction.atomic():
        if not Contest.objects.filter(pk=contest.pk, frozen_at__isnull=True).update(frozen_at=now):
            return False
        rankings = live_rankings(contest=contest)
        made = [e.submission_id for _, _, entries in rankings for e in entries]
        owner = dict(Submission.objects.filter(pk__in=made).values_list("pk", "user_id"))
        FinalEntry.objects.bulk_create(
            FinalEntry(
                contest=contest,
                problem=problem,
                device_kind=kind,
                rank=e.rank,
                user_id=owner[e.submission_id],
                username=e.username,
                is_agent=e.is_agent,
                score_s=e.score_s,
                score_low_s=e.score_low_s,
                score_high_s=e.score_high_s,
                tied_with=list(e.tied_with),
                submission_id=e.submission_id,
                language=e.language,
                submitted_at=e.submitted_at,
            )
            for problem, kind, entries in rankings
            for e in entries
        )
    contest.frozen_at = now
    return True


def contests_freeze_due(*, now: datetime | None = None) -> list[Contest]:
    """Freeze every contest that is due; the ones this call froze."""
    now = now or timezone.now()
    ended = Contest.objects.filter(frozen_at__isnull=True, ends_at__lte=now)
    return [c for c in ended if contest_freeze(contest=c, now=now)]


def contest_unfreeze(*, contest: Contest) -> None:
    """Drop a contest's final board (a staff decision: a verdict in it changed after the freeze); the board
    is computed again from the submissions made in it, and frozen again at the next read."""
    with transaction.atomic():
        FinalEntry.objects.filter(contest=contest).delete()
        Contest.objects.filter(pk=contest.pk).update(frozen_at=None)
    contest.frozen_at = None

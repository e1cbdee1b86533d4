"""The contests in the JSON API (mounted at /api/contests by leaderboard/api/endpoints.py): the list, and
one contest's board as its page shows it. Reading needs no token, like the rankings."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from ninja import Router
from pydantic import BaseModel, Field

from leaderboard.api.schemas import ErrorOut, RankingEntryOut
from leaderboard.contests.models import Contest, Phase
from leaderboard.contests.selectors import ProblemBoard, contest_board, contest_get, contest_list
from leaderboard.contests.services import contest_freeze, contests_freeze_due
from leaderboard.submissions.selectors import RankingEntry

router = Router(tags=["contests"])


class ContestOut(BaseModel):
    name: str
    title: str
    description: str
    problems: list[str]
    starts_at: datetime = Field(description="submissions made from this moment count")
    ends_at: datetime = Field(description="submissions made before this moment count")
    phase: str = Field(description=", ".join(f"{p.value} ({p.label})" for p in Phase))
    frozen_at: datetime | None = Field(description="when the final board was stored; null before")


class BoardOut(BaseModel):
    problem: str
    device: str
    entries: list[RankingEntryOut]


class ContestBoardOut(ContestOut):
    pending: int = Field(description="leaderboard submissions made in it that still wait for a verdict")
    boards: list[BoardOut] = Field(description="the contest's board, per problem and device kind")
    after: list[BoardOut] = Field(
        description="each user's best entry made after the end: judged, not ranked in the contest "
        "(their `rank` is their place among these, nothing more)"
    )


def _contest(contest: Contest, now: datetime) -> dict:
    return {
        "name": contest.name,
        "title": contest.title,
        "description": contest.description,
        "problems": [p.name for p in contest.problems.all()],
        "starts_at": contest.starts_at,
        "ends_at": contest.ends_at,
        "phase": contest.phase(now).value,
        "frozen_at": contest.frozen_at,
    }


def _entry(e: RankingEntry) -> RankingEntryOut:
    return RankingEntryOut(
        rank=e.rank,
        user=e.username,
        is_agent=e.is_agent,
        score_s=e.score_s,
        score_low_s=e.score_low_s,
        score_high_s=e.score_high_s,
        tied_with=list(e.tied_with),
        submission_id=e.submission_id,
        language=e.language,
        submitted_at=e.submitted_at,
    )


def _boards(boards: list[ProblemBoard]) -> list[BoardOut]:
    return [
        BoardOut(problem=b.problem.name, device=kind, entries=[_entry(e) for e in entries])
        for b in boards
        for kind, _, entries in b.rankings
    ]


@router.get("", response=list[ContestOut])
def list_contests(request):
    """Every contest, the latest to start first, with its phase."""
    contests_freeze_due()
    now = timezone.now()
    return [_contest(c, now) for c in contest_list()]


@router.get("/{name}", response={200: ContestBoardOut, 404: ErrorOut})
def get_contest(request, name: str):
    """One contest and its board: live while it runs, the stored final board once frozen."""
    contest = contest_get(name=name)
    contest_freeze(contest=contest)
    now = timezone.now()
    board = contest_board(contest=contest, now=now)
    return {
        **_contest(contest, now),
        "pending": board.pending,
        "boards": _boards(board.boards),
        "after": _boards(board.after),
    }

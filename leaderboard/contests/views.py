"""The contests' pages. Thin: selectors read; a read of an ended contest first freezes its board when it
is due (services.contest_freeze: idempotent, so any page or process may be the one that does it)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from leaderboard.contests.selectors import contest_board, contest_get, contest_list
from leaderboard.contests.services import contest_freeze, contests_freeze_due
from leaderboard.errors import NotFound


@require_safe
def contests(request: HttpRequest) -> HttpResponse:
    contests_freeze_due()
    now = timezone.now()
    return render(
        request, "contests/contest_list.html", {"contests": [(c, c.phase(now)) for c in contest_list()]}
    )


@require_safe
def contest_detail(request: HttpRequest, name: str) -> HttpResponse:
    try:
        contest = contest_get(name=name)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    contest_freeze(contest=contest)
    board = contest_board(contest=contest, now=timezone.now())
    return render(request, "contests/contest_detail.html", {"contest": contest, "board": board})

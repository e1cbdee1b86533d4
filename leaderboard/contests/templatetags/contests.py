"""What the other apps' pages show of contests, each one tag: a problem's contests and their time left,
a user's contest history, where a submission stands in the contests over its problem."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone

from leaderboard.contests.selectors import contest_history, contests_of_problem, contests_of_submission

register = template.Library()


@register.filter
def time_left(until: datetime) -> str:
    """The time from now until `until` in words, to the second under an hour ("2 h 13 min", "4 min 5 s");
    static/contests/contests.js counts down in the same words."""
    s = max(0, int((until - timezone.now()).total_seconds()))
    d, h, m = s // 86400, s % 86400 // 3600, s % 3600 // 60
    if d:
        return f"{d} d {h} h"
    if h:
        return f"{h} h {m} min"
    return f"{m} min {s % 60} s" if m else f"{s % 60} s"


@register.inclusion_tag("contests/_problem_contests.html")
def problem_contests(problem) -> dict:
    now = timezone.now()
    return {"lines": [(c, c.phase(now)) for c in contests_of_problem(problem=problem, now=now)]}


@register.inclusion_tag("contests/_user_contests.html")
def user_contests(user) -> dict:
    return {"lines": contest_history(user=user, now=timezone.now())}


@register.inclusion_tag("contests/_submission_contests.html")
def submission_contests(submission) -> dict:
    return {"lines": contests_of_submission(submission=submission, now=timezone.now())}

"""Who may see what on the pages.

- A ranked (leaderboard-mode) submission's page is public: its verdict, score, cases and timings.
  Test and benchmark submissions are experiments: only their author and staff see them at all.
- A submission's source, and what could reveal it (the contestant's logs, the static scan's quoted lines),
  is for its author and staff; everyone else sees it once the problem's deadline has passed, and never
  when the problem sets no deadline.
- A profile run's per-operator tables (and their CSVs) are for its author and staff only, deadline or not:
  they are a map of the kernel's operators, and profile runs are experiments like test runs.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime

from django.utils import timezone

from leaderboard.problems.models import Problem
from leaderboard.submissions.models import Mode, Submission


@functools.lru_cache(maxsize=128)
def _deadline_of(name: str, content_hash: str) -> datetime | None:
    # The deadline is the problem folder's DEADLINE (ISO 8601, UTC when it names no zone); the database
    # does not store it, so it is read from the folder, once per version.
    from runner.problem import load_problem

    try:
        text = load_problem(name).deadline
    except KeyError:  # a retired problem whose folder is gone
        return None
    if not text:
        return None
    moment = datetime.fromisoformat(str(text))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def problem_deadline(problem: Problem) -> datetime | None:
    """The problem's deadline, or None when it sets none."""
    version = problem.current_version
    return _deadline_of(problem.name, version.content_hash if version else "")


def _is_author_or_staff(user, submission: Submission) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.pk == submission.user_id))


def can_see_submission(user, submission: Submission) -> bool:
    return submission.mode == Mode.LEADERBOARD or _is_author_or_staff(user, submission)


def can_see_source(user, submission: Submission) -> bool:
    if _is_author_or_staff(user, submission):
        return True
    deadline = problem_deadline(submission.problem_version.problem)
    return deadline is not None and timezone.now() >= deadline and can_see_submission(user, submission)


def can_see_profiles(user, submission: Submission) -> bool:
    return _is_author_or_staff(user, submission)

"""Reads of problems."""

from __future__ import annotations

from django.db.models import QuerySet

from leaderboard.errors import NotFound
from leaderboard.problems.models import Problem, ReferenceScore
from runner.vocabulary import DEVICE_KINDS


def problem_list() -> QuerySet[Problem]:
    """The problems open for submissions, with their current version."""
    return Problem.objects.filter(is_active=True, current_version__isnull=False).select_related(
        "current_version"
    )


def problem_get(*, name: str) -> Problem:
    """The problem called `name` (retired ones too: their rankings stay readable)."""
    problem = Problem.objects.select_related("current_version").filter(name=name).first()
    if problem is None or problem.current_version is None:
        known = ", ".join(problem_list().values_list("name", flat=True)) or "none yet"
        raise NotFound(f"There is no problem called {name!r}. The problems are: {known}.")
    return problem


def reference_scores(*, problem: Problem) -> list[tuple[str, ReferenceScore]]:
    """The reference's own score on each device kind where it was judged, for the current version, as
    (the kind's label, the score), in the vocabulary's order of kinds."""
    found = {r.device_kind: r for r in ReferenceScore.objects.filter(version_id=problem.current_version_id)}
    return [(kind.label, found[name]) for name, kind in DEVICE_KINDS.items() if name in found]

"""Writes of problems: syncing the database with the problems/ folders."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from leaderboard.problems.models import Problem, ProblemVersion, ReferenceScore

# The runner's device names: "cpu" uses a problem's small CPU shapes, "cuda" its GPU shapes.
_RUNNER_DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class SyncedProblem:
    name: str
    version: str
    change: str  # "new" (first sync) | "new version" | "unchanged" | "retired"
    previous_version: str | None = None


def _cases_of(loaded) -> dict:
    """Each case with its FLOP and byte counts per call (problem.py's `counts`; None where the problem does
    not say): what the problem page shows, and the runner's rates divide by a time."""
    return {
        device: {
            kind: [_case_of(loaded, c) for c in loaded.cases(kind, device)] for kind in ("test", "benchmark")
        }
        for device in _RUNNER_DEVICES
    }


def _case_of(loaded, case) -> dict:
    flops, nbytes = loaded.counts(case)
    return {
        "id": case.id,
        "params": case.params,
        "seed": case.seed,
        "flops": float(flops) or None,
        "bytes": float(nbytes) or None,
    }


@transaction.atomic
def problem_sync_all() -> list[SyncedProblem]:
    """Make the database match the problems/ folders: a new content hash becomes a new current version
    (older versions stay, with their submissions); a vanished folder retires its problem."""
    from runner.problem import list_problems, load_problem

    results = []
    names = list_problems()
    for name in names:
        loaded = load_problem(name)
        fields = {
            "title": loaded.title,
            "statement": loaded.statement,
            "tolerance": loaded.tolerance(),
            "cases": _cases_of(loaded),
            "templates": loaded.templates,
            "reference_source": loaded.reference_source,
            "task_source": loaded.task_source,
        }
        problem, created = Problem.objects.select_for_update().get_or_create(
            name=name, defaults={"title": loaded.title}
        )
        previous = problem.current_version
        # Statement and templates do not enter the hash (they decide no verdict): refresh them in place.
        version, _ = ProblemVersion.objects.update_or_create(
            problem=problem, content_hash=loaded.version, defaults=fields
        )
        problem.title = loaded.title
        problem.difficulty, problem.tags = loaded.about.difficulty, list(loaded.about.tags)
        problem.current_version = version
        problem.is_active = True
        problem.save(
            update_fields=["title", "difficulty", "tags", "current_version", "is_active", "updated_at"]
        )
        if created or previous is None:
            change = "new"
        elif previous.pk != version.pk:
            change = "new version"
        else:
            change = "unchanged"
        results.append(
            SyncedProblem(
                name,
                loaded.version,
                change,
                previous.content_hash if previous and change != "unchanged" else None,
            )
        )
    for problem in Problem.objects.filter(is_active=True).exclude(name__in=names):
        problem.is_active = False
        problem.save(update_fields=["is_active", "updated_at"])
        version = problem.current_version
        results.append(SyncedProblem(problem.name, version.content_hash if version else "", "retired"))
    return results


def reference_score_record(*, version: ProblemVersion, device_kind: str, report) -> ReferenceScore | None:
    """Keep the reference's leaderboard run on `device_kind` as the version's baseline there (replacing an
    older one), when it passed with a score; None otherwise (nothing is kept)."""
    if not report.passed or report.score_s is None:
        return None
    score, _ = ReferenceScore.objects.update_or_create(
        version=version,
        device_kind=device_kind,
        defaults={
            "score_s": report.score_s,
            "score_low_s": report.score_low_s,
            "score_high_s": report.score_high_s,
            "measured_at": timezone.now(),
        },
    )
    return score

"""Editing and comparing one's submissions: the submit form prefilled from a submission, a user's previous and
best submission on a problem, and a unified diff of two sources. access.py decides who may see a source; this
module only reads what a view has been allowed to show."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Q
from django.urls import reverse

from leaderboard.problems.selectors import problem_list
from leaderboard.submissions.languages import language_of
from leaderboard.submissions.models import Mode, State, Submission
from leaderboard.web.access import can_see_source

# How many source lines a diff shows at most: a source is capped in size, but two 256 KiB one-liners apart
# could still be a long page.
MAX_DIFF_LINES = 5000
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def editable_submission(user, submission_id: int) -> Submission | None:
    """The submission a user may start the form from: their own (or any, for staff, who see every source);
    None for anyone else, so that the form cannot tell another user's submission from a missing one."""
    if not user.is_authenticated:
        return None
    found = (
        Submission.objects.select_related("problem_version__problem", "source")
        .filter(pk=submission_id)
        .first()
    )
    if found is None or not (user.is_staff or found.user_id == user.pk):
        return None
    return found


def prefill(submission: Submission) -> dict:
    return {
        "problem": submission.problem_version.problem.name,
        "device_kind": submission.device_kind,
        "mode": submission.mode,
        "language": submission.language,
        "source": submission.source.text,
    }


def best_submission(*, user, problem_name: str, device_kind: str | None = None) -> Submission | None:
    """The user's fastest ranked submission on the problem (a passed leaderboard run with a score), else None."""
    found = Submission.objects.filter(
        user=user,
        problem_version__problem__name=problem_name,
        mode=Mode.LEADERBOARD,
        state=State.PASSED,
        run__score_s__gt=0,
    )
    if device_kind:
        found = found.filter(device_kind=device_kind)
    return found.order_by("run__score_s", "-created_at").first()


def previous_submission(submission: Submission) -> Submission | None:
    """The same author's submission on the same problem just before this one."""
    return (
        Submission.objects.filter(
            user_id=submission.user_id,
            problem_version__problem_id=submission.problem_version.problem_id,
        )
        .filter(
            Q(created_at__lt=submission.created_at)
            | Q(created_at=submission.created_at, pk__lt=submission.pk)
        )
        .order_by("-created_at", "-pk")
        .first()
    )


def comparison_target(viewer, submission: Submission, against: str) -> Submission | None:
    """The submission named by `against` (previous, best or an id) when the viewer may see its source."""
    if against == "previous":
        other = previous_submission(submission)
    elif against == "best":
        other = best_submission(
            user=submission.user,
            problem_name=submission.problem_version.problem.name,
            device_kind=submission.device_kind,
        )
    elif against.isdigit():
        other = Submission.objects.select_related("problem_version__problem").filter(pk=int(against)).first()
    else:
        return None
    if other is None or other.pk == submission.pk or not can_see_source(viewer, other):
        return None
    return other


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add", "del", "same" or "hunk"
    old: int | None
    new: int | None
    text: str


def source_diff(old: str, new: str, *, context: int = 3) -> list[DiffLine]:
    """A unified diff of two sources as rows with each line's old and new number (the template escapes)."""
    rows: list[DiffLine] = []
    old_no = new_no = 0
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=context)
    for line in lines:
        if line.startswith(("---", "+++")) and not rows:
            continue
        hunk = _HUNK.match(line)
        if hunk:
            old_no, new_no = int(hunk[1]), int(hunk[2])
            rows.append(DiffLine("hunk", None, None, line))
        elif line.startswith("+"):
            rows.append(DiffLine("add", None, new_no, line[1:]))
            new_no += 1
        elif line.startswith("-"):
            rows.append(DiffLine("del", old_no, None, line[1:]))
            old_no += 1
        else:
            rows.append(DiffLine("same", old_no, new_no, line[1:]))
            old_no += 1
            new_no += 1
        if len(rows) >= MAX_DIFF_LINES:
            rows.append(DiffLine("hunk", None, None, f"... cut at {MAX_DIFF_LINES} lines"))
            break
    return rows


@dataclass(frozen=True)
class Start:
    label: str
    url: str
    template: str = ""  # the template's file name; "" for a submission


# The template a fresh form starts from, where the problem has it; else its first template by name.
STARTER_TEMPLATE = "pytorch.py"


def _starter_name(templates: dict[str, str]) -> str:
    return STARTER_TEMPLATE if STARTER_TEMPLATE in templates else min(templates, default="")


def editor_templates() -> dict[str, dict]:
    """Every open problem's templates for the editor's script: {problem: {"starter": file name, "templates":
    {file name: {"source", "language"}}}}, the language read from each source as the form checks it."""
    found = {}
    for problem in problem_list():
        templates = problem.current_version.templates
        found[problem.name] = {
            "starter": _starter_name(templates),
            "templates": {
                name: {"source": text, "language": language_of(text)}
                for name, text in sorted(templates.items())
            },
        }
    return found


def starter_initial(problem_name: str | None, template: str | None = None) -> dict:
    """A fresh form's start: the problem (the first open one when none is named), the named template's source,
    else the problem's starter template, and the language that source is written in."""
    problems = {p.name: p for p in problem_list()}
    problem = problems.get(problem_name or "") or (
        None if problem_name else next(iter(problems.values()), None)
    )
    if problem is None:
        return {"problem": problem_name} if problem_name else {}
    templates = problem.current_version.templates
    name = template if template in templates else _starter_name(templates)
    if not name:
        return {"problem": problem.name}
    return {"problem": problem.name, "source": templates[name], "language": language_of(templates[name])}


def submit_starts(user, problem_name: str | None) -> list[Start]:
    """Where the form can start for the chosen problem: each of its templates, and the user's best entry."""
    from leaderboard.problems.models import Problem

    problem = Problem.objects.select_related("current_version").filter(name=problem_name or "").first()
    if problem is None or problem.current_version is None:
        return []
    starts = [
        Start(
            f"template {name}",
            f"{reverse('web:submit')}?{urlencode({'problem': problem.name, 'template': name})}",
            name,
        )
        for name in sorted(problem.current_version.templates)
    ]
    best = best_submission(user=user, problem_name=problem.name) if user.is_authenticated else None
    if best is not None:
        starts.append(Start(f"my best (#{best.pk})", f"{reverse('web:submit')}?from={best.pk}"))
    return starts


def syntax_error_line(report: dict) -> int | None:
    """The line of a syntax error the judge's pre-check reported (runner/caller.py), else None."""
    line = (report or {}).get("error_line")
    return line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None

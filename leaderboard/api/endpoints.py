"""The API's endpoints: thin, they call selectors and services and shape their answers.

Reading problems and rankings needs no token; everything about submissions needs `Authorization: Bearer`.
Every error is `{"error": code, "message": words}`.
"""

from __future__ import annotations

import dataclasses
import logging

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from ninja import NinjaAPI, Query, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer

from leaderboard.accounts.services import api_token_authenticate
from leaderboard.api.schemas import (
    DeviceKindName,
    DeviceKindOut,
    ErrorOut,
    ProblemDetail,
    ProblemSummary,
    RankingOut,
    SubmissionBrief,
    SubmissionCreated,
    SubmissionIn,
    SubmissionOut,
)
from leaderboard.errors import Refusal
from leaderboard.problems.selectors import problem_get, problem_list
from leaderboard.submissions.history import submission_history
from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.profiles import profile_csv_of, profiles_of
from leaderboard.submissions.selectors import (
    device_kind_statuses,
    live_progress,
    ranking_for_problem,
    served_device_kinds,
    submission_for_author_or_staff,
    submission_for_user,
    submission_list_for_user,
    submission_queue_position,
    submission_queue_wait,
)
from leaderboard.submissions.services import submission_cancel, submission_create
from runner.vocabulary import DEVICE_KINDS, judging_queue

logger = logging.getLogger(__name__)


class ApiToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        return api_token_authenticate(token=token)


api = NinjaAPI(
    title="Kernelboard API",
    version="1",
    description="Submit GPU kernels, follow their judging, read the rankings. "
    "Make a token on the site's page /account/tokens/ (signed in), and send it as `Authorization: Bearer`.",
    urls_namespace="api",
)
ERRORS = {
    400: ErrorOut,
    401: ErrorOut,
    404: ErrorOut,
    413: ErrorOut,
    422: ErrorOut,
    429: ErrorOut,
    503: ErrorOut,
}


def _error(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    return api.create_response(request, {"error": code, "message": message}, status=status)


@api.exception_handler(Refusal)
def _refusal(request, exc: Refusal):
    response = _error(request, exc.status, exc.code, exc.message)
    if exc.retry_after_s is not None:
        response["Retry-After"] = str(exc.retry_after_s)
    return response


@api.exception_handler(AuthenticationError)
def _unauthorized(request, exc):
    if request.headers.get("Authorization"):
        message = "That API token is not valid (revoked, mistyped, or not a Bearer token)."
    else:
        message = "This needs an API token: send the header `Authorization: Bearer <token>`."
    tokens_page = request.build_absolute_uri(reverse("web:tokens"))
    message += (
        f" Make one at {tokens_page} (sign in first), then send it, or set KERNELBOARD_TOKEN for the CLI."
    )
    return _error(request, 401, "unauthorized", message)


@api.exception_handler(ValidationError)
def _invalid(request, exc: ValidationError):
    parts = []
    for e in exc.errors:
        where = ".".join(str(p) for p in e.get("loc", ()) if p not in ("body", "payload", "query", "path"))
        parts.append(f"{where}: {e.get('msg', 'invalid')}" if where else e.get("msg", "invalid"))
    return _error(request, 422, "invalid_request", "The request is not valid. " + "; ".join(parts) + ".")


@api.exception_handler(RequestDataTooBig)
def _too_big(request, exc):
    return _error(request, 413, "request_too_large", "The request body is too large for a submission.")


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    return _error(request, exc.status_code, "error", str(exc))


@api.exception_handler(Exception)
def _unexpected(request, exc):
    logger.exception("API error on %s", request.path)
    return _error(request, 500, "internal_error", "Something went wrong on our side; it has been logged.")


api.add_router("/contests", "leaderboard.contests.api.router")  # GET /api/contests, /api/contests/{name}


def _problem_summary(problem) -> dict:
    return {
        "name": problem.name,
        "title": problem.title,
        "version": problem.current_version.content_hash,
        "difficulty": problem.difficulty,
        "tags": problem.tags,
    }


@api.get("/problems", response=list[ProblemSummary], tags=["problems"])
def list_problems(request):
    """The problems open for submissions."""
    return [_problem_summary(p) for p in problem_list()]


@api.get("/problems/{name}", response={200: ProblemDetail, 404: ErrorOut}, tags=["problems"])
def get_problem(request, name: str):
    """A problem with its statement, its cases for each runner device, and its templates."""
    problem = problem_get(name=name)
    version = problem.current_version
    return {
        **_problem_summary(problem),
        "statement": version.statement,
        "tolerance": version.tolerance,
        "cases": version.cases,
        "device_kinds": {key: kind.runner_device for key, kind in DEVICE_KINDS.items()},
        "templates": version.templates,
    }


@api.get("/problems/{name}/rankings", response={200: RankingOut, 404: ErrorOut}, tags=["rankings"])
def get_rankings(request, name: str, device: Query[DeviceKindName] = "cpu", limit: int = 100):
    """The ranking of a problem's current version on one device kind: each user's best ranked submission."""
    problem = problem_get(name=name)
    entries = ranking_for_problem(problem=problem, device_kind=device, limit=max(1, min(limit, 1000)))
    return {
        "problem": problem.name,
        "version": problem.current_version.content_hash,
        "device": device,
        "entries": [
            {
                "rank": e.rank,
                "user": e.username,
                "is_agent": e.is_agent,
                "score_s": e.score_s,
                "score_low_s": e.score_low_s,
                "score_high_s": e.score_high_s,
                "tied_with": list(e.tied_with),
                "submission_id": e.submission_id,
                "language": e.language,
                "submitted_at": e.submitted_at,
            }
            for e in entries
        ],
    }


@api.get("/device-kinds", response=list[DeviceKindOut], tags=["problems"])
def list_device_kinds(request):
    """Each device kind: the workers that serve it now, its queue, and the expected wait before a new
    submission starts. A submission for a kind that no worker serves is refused (503 no_worker)."""
    return [
        {
            "name": s.kind,
            "label": s.label,
            "served": s.served,
            "workers": s.workers,
            "queued": s.queued,
            "running": s.running,
            "wait_estimate_s": None if s.wait_estimate_s is None else round(s.wait_estimate_s, 1),
            "status": s.words(),
            "explore_workers": s.explore_workers,
            "explore_queued": s.explore_queued,
        }
        for s in device_kind_statuses()
    ]


@api.post("/submissions", auth=ApiToken(), response={201: SubmissionCreated, **ERRORS}, tags=["submissions"])
def post_submission(request, payload: SubmissionIn):
    """Submit a kernel. It is queued for its device kind and judged once; follow it at `url`. A device kind
    that no worker serves now is refused (503, `no_worker`): see GET /api/device-kinds. Mode `explore` is
    the exploration tier, for an agent's candidates: judged as a benchmark, on a queue and a quota of its
    own, never ranked; identical code judged before answers at once with that run (`reuse`)."""
    submission = submission_create(
        user=request.auth,
        problem=payload.problem,
        device_kind=payload.device,
        mode=payload.mode,
        language=payload.language,
        source=payload.source,
        reuse=payload.reuse,
    )
    wait = submission_queue_wait(submission=submission)
    return Status(
        201,
        {
            "id": submission.pk,
            "state": submission.state,
            "queue_position": submission_queue_position(submission=submission),
            "wait_estimate_s": round(wait.estimate_s, 1) if wait and wait.estimate_s is not None else None,
            "url": f"/api/submissions/{submission.pk}",
            "shared_from": submission.shared_from_id,
        },
    )


@api.post(
    "/submissions/{submission_id}/cancel",
    auth=ApiToken(),
    response={200: SubmissionBrief, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    tags=["submissions"],
)
def cancel_submission(request, submission_id: int):
    """Take one of your queued submissions off the queue: it ends as `cancelled` and is never judged. One
    that is running or final answers 409."""
    return _brief(submission_cancel(user=request.auth, submission_id=submission_id))


@api.get(
    "/submissions",
    auth=ApiToken(),
    response={200: list[SubmissionBrief], 401: ErrorOut},
    tags=["submissions"],
)
def list_submissions(request, problem: str | None = None, limit: int = 50):
    """Your latest submissions, newest first."""
    submissions = submission_list_for_user(user=request.auth, problem=problem)[: max(1, min(limit, 500))]
    return [_brief(s) for s in submissions]


def _brief(s: Submission) -> dict:
    return {
        "id": s.pk,
        "problem": s.problem_version.problem.name,
        "device": s.device_kind,
        "mode": s.mode,
        "language": s.language,
        "state": s.state,
        "final": s.is_final,
        "message": s.message,
        "score_s": run.score_s if (run := _run_of(s)) else None,
        "score_low_s": run.score_low_s if run else None,
        "score_high_s": run.score_high_s if run else None,
        "created_at": s.created_at,
    }


def _run_of(submission: Submission):
    try:
        return submission.run
    except Submission.run.RelatedObjectDoesNotExist:
        return None


@api.get(
    "/submissions/{submission_id}",
    auth=ApiToken(),
    response={200: SubmissionOut, 401: ErrorOut, 404: ErrorOut},
    tags=["submissions"],
)
def get_submission(request, submission_id: int):
    """One of your submissions: its state, queue position, verdict, score and per-case results."""
    submission = submission_for_user(user=request.auth, submission_id=submission_id)
    run = _run_of(submission)
    cases = list(run.cases.all()) if run else []
    return {
        "id": submission.pk,
        "problem": submission.problem_version.problem.name,
        "problem_version": submission.problem_version.content_hash,
        "device": submission.device_kind,
        "mode": submission.mode,
        "language": submission.language,
        "state": submission.state,
        "final": submission.is_final,
        "queue_position": submission_queue_position(submission=submission),
        "attempts": submission.attempts,
        "history": [dataclasses.asdict(a) for a in submission_history(submission=submission)],
        "message": submission.message,
        "verdict": run.verdict if run else None,
        "score_s": run.score_s if run else None,
        "score_low_s": run.score_low_s if run else None,
        "score_high_s": run.score_high_s if run else None,
        "score_note": run.score_note if run else "",
        "cases": [
            {
                "id": c.case_id,
                "kind": c.kind,
                "status": c.status,
                "message": c.message,
                "median_s": c.median_s,
                "median_low_s": c.median_low_s,
                "median_high_s": c.median_high_s,
                "mean_s": c.mean_s,
                "stderr_s": c.stderr_s,
                "stats": c.stats,
                "floor_s": c.floor_s,
            }
            for c in cases
        ],
        "flags": run.flags if run else [],
        "profiles": [
            {"number": p.number, "case": p.case, "text": p.text, "has_csv": p.has_csv, "ncu": p.ncu}
            for p in profiles_of(run)
        ],
        "created_at": submission.created_at,
        "started_at": submission.started_at,
        "finished_at": submission.finished_at,
        "source_sha256": submission.source.sha256,
        "progress": live_progress(submission),
        "unserved": submission.state == State.QUEUED
        and judging_queue(submission.device_kind, submission.mode) not in served_device_kinds(),
        "shared_from": submission.shared_from_id,
    }


@api.get(
    "/submissions/{submission_id}/profiles/{number}.csv",
    auth=ApiToken(),
    response={401: ErrorOut, 404: ErrorOut},
    tags=["submissions"],
    # The answer is CSV, not JSON: described here, as ninja would describe a JSON body otherwise.
    openapi_extra={
        "responses": {
            "200": {
                "description": "the table as CSV, an attachment",
                "content": {"text/csv": {"schema": {"type": "string"}}},
            }
        }
    },
)
def get_profile_csv(request, submission_id: int, number: int):
    """One of your profile runs' per-operator tables, as CSV (a cell a spreadsheet would run starts with ').
    Staff may download anyone's, as on the site."""
    submission = submission_for_author_or_staff(user=request.auth, submission_id=submission_id)
    profile = profile_csv_of(run=_run_of(submission), submission_id=submission.pk, number=number)
    response = HttpResponse(profile.csv, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{profile.filename(submission.pk)}"'
    return response

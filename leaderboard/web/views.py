"""The pages. Thin: selectors read, services write, access.py decides who sees what."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, LogoutView
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from leaderboard.accounts.selectors import api_token_of, api_tokens_of
from leaderboard.accounts.services import api_token_create, api_token_revoke, user_email_set
from leaderboard.errors import Conflict, NotFound, Refusal
from leaderboard.problems.selectors import problem_get, reference_scores
from leaderboard.submissions.history import submission_history
from leaderboard.submissions.models import Mode, State
from leaderboard.submissions.profiles import profile_csv_of, profiles_of
from leaderboard.submissions.selectors import (
    device_kind_statuses,
    live_progress,
    ranking_for_problem,
    served_device_kinds,
    source_of,
    submission_queue_position,
    submission_queue_wait,
    typical_run_seconds,
)
from leaderboard.submissions.services import submission_cancel, submission_create
from leaderboard.web.access import can_see_profiles, can_see_source, can_see_submission, problem_deadline
from leaderboard.web.code import highlight
from leaderboard.web.editor import (
    comparison_target,
    editable_submission,
    editor_templates,
    prefill,
    source_diff,
    starter_initial,
    submit_starts,
    syntax_error_line,
)
from leaderboard.web.forms import EmailForm, SignUpForm, SubmitForm, TokenForm
from leaderboard.web.markdown import render_statement
from leaderboard.web.plots import CaseTiming, case_chart, record_chart
from leaderboard.web.presentation import (
    case_label,
    case_rows,
    entry_rates,
    flag_view,
    limit_text,
    public_env,
    redact_paths,
    report_text,
    skipped_cases,
    status_counts,
)
from leaderboard.web.problem_page import TABS, case_table, chosen_tab, top_times
from leaderboard.web.selectors import (
    BOARD_TTL_S,
    agent_run_of,
    case_counts,
    problem_board,
    problem_summaries,
    run_of,
    scored_rates,
    submission_for_page,
    user_best_entries,
    user_problem_submissions,
    user_submissions,
)
from leaderboard.web.standing import standing_of
from runner.limits import MODE_LIMITS
from runner.vocabulary import DEVICE_KINDS, judged_as, judging_queue

LOGIN = reverse_lazy("web:login")
_TOKEN_SESSION_KEY = "web:new_api_token"  # the token made by the last POST, shown once by the next GET


def _or_404(fn, **kwargs):
    try:
        return fn(**kwargs)
    except NotFound as exc:
        raise Http404(exc.message) from exc


# --- problems ---------------------------------------------------------------------------------------------


@require_safe
def problem_list(request: HttpRequest) -> HttpResponse:
    return render(request, "web/problem_list.html", {"summaries": problem_summaries()})


def _standings(problem, board, device: str, show_all: bool) -> dict:
    """One device kind's rankings (all of it when asked), its top entries' case times, and the plot of the
    best score over time, from the Board."""
    entries = (
        ranking_for_problem(problem=problem, device_kind=device)
        if show_all
        else board.rankings.get(device, [])
    )
    chart = record_chart(
        [(b.label, board.history.get(b.device_kind, [])) for b in board.bests], now=timezone.now()
    )
    rates = scored_rates(submission_ids=[e.submission_id for e in entries])
    ranked = [(e, entry_rates(rates[e.submission_id], device)) for e in entries]
    return {
        "entries": entries,
        "ranked": ranked,  # each entry with its FLOP/s and bytes/s and their shares of the peaks
        "rated": any(r.flops_per_s or r.bytes_per_s for _, r in ranked),
        "top": top_times(entries),
        "chart": chart,
    }


def _url_prefix(name: str) -> str:
    """The path of a page named `name` without its last argument, for links in long tables (reversing a
    URL per row is what made a problem page's rankings slow)."""
    return reverse(name, args=["0"])[: -len("0/")]


@require_safe
def problem_detail(request: HttpRequest, name: str) -> HttpResponse:
    problem = _or_404(problem_get, name=name)
    version = problem.current_version
    board = problem_board(problem=problem)
    tab = chosen_tab(request.GET.get("tab"))
    kinds = [b.device_kind for b in board.bests]
    device = request.GET.get("device") if request.GET.get("device") in kinds else (kinds[0] if kinds else "")
    show_all = request.GET.get("all") == "1"
    context = {
        "problem": problem,
        "version": version,
        "tab": tab,
        "tabs": TABS,
        "board": board,
        "device": device,
        "best": next((b for b in board.bests if b.device_kind == device), None),
        "show_all": show_all,
        "cache_s": BOARD_TTL_S,
        "deadline": problem_deadline(problem),
        "user_url": _url_prefix("web:user"),
        "submission_url": _url_prefix("web:submission"),
    }
    if tab == "rankings":
        context["references"] = reference_scores(problem=problem)  # the baseline, per device kind
        # Rendered only when the cached standings are not (see the template's {% cache %}).
        context["standings"] = lambda: _standings(problem, board, device, show_all)
    elif tab == "statement":
        context["statement"] = render_statement(version.statement)
        context["templates"] = sorted(version.templates)
    elif tab == "cases":
        context["cases"] = case_table(version.cases)
    elif tab == "reference":
        context["reference"] = highlight(version.reference_source, line_numbers=True)
        context["task"] = highlight(version.task_source, line_numbers=True)
        context["templates"] = sorted(version.templates)
    elif request.user.is_authenticated:
        context["mine"] = user_problem_submissions(user=request.user, problem=problem)
    return render(request, "web/problem_detail.html", context)


@require_safe
def template_download(request: HttpRequest, name: str, filename: str) -> HttpResponse:
    problem = _or_404(problem_get, name=name)
    text = problem.current_version.templates.get(filename)
    if text is None:
        raise Http404(f"The problem {name} has no template {filename!r}.")
    response = HttpResponse(text, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}_{filename}"'
    return response


# --- submitting -------------------------------------------------------------------------------------------


def _limits_table() -> list[tuple[str, dict]]:
    return [(mode, MODE_LIMITS[judged_as(mode)].to_dict()) for mode in Mode.values]


@login_required(login_url=LOGIN)
@require_http_methods(["GET", "HEAD", "POST"])
def submit(request: HttpRequest) -> HttpResponse:
    status = 200
    source_origin = "posted"  # where the form's source came from; the editor's script reads it
    if request.method == "POST":
        form = SubmitForm(request.POST, request.FILES)
        if form.is_valid():
            data = form.cleaned_data
            try:
                submission = submission_create(
                    user=request.user,
                    problem=data["problem"],
                    device_kind=data["device_kind"],
                    mode=data["mode"],
                    language=data["language"],
                    source=data["source"],
                )
            except Refusal as exc:
                form.add_error(None, exc.message)
                status = exc.status
            else:
                return redirect("web:submission", submission_id=submission.pk)
        else:
            # An upload over the limit answers 413 like the API; other mistakes are the form's 400.
            status = 413 if form.has_error(NON_FIELD_ERRORS, "too_large") else 400
    else:
        start = request.GET.get("from", "")
        if start:
            # Edit and resubmit: the author's own submission (staff: any); for anyone else, as absent as none.
            origin = editable_submission(request.user, int(start)) if start.isdigit() else None
            if origin is None:
                raise Http404(f"There is no submission #{start} of yours to start from.")
            initial = prefill(origin)
            source_origin = "submission"
        else:
            # The named template, else the problem's starter; the editor may put back a draft over a starter.
            template = request.GET.get("template")
            initial = starter_initial(request.GET.get("problem"), template)
            source_origin = "template" if template else "starter"
        form = SubmitForm(initial=initial)
    kinds = device_kind_statuses()
    # Each device kind says, where it is chosen, whether a worker serves it now and how long a submission waits.
    form.fields["device_kind"].choices = [(k.kind, f"{k.kind} ({k.words()})") for k in kinds]
    context = {
        "form": form,
        "device_kinds": kinds,
        "prefilled": request.method == "GET" and bool(request.GET.get("problem") or request.GET.get("from")),
        "starts": submit_starts(request.user, form["problem"].value()),
        "source_origin": source_origin,
        "editor_templates": editor_templates(),
        "limits": _limits_table(),
        "max_source_bytes": settings.SUBMISSION_MAX_SOURCE_BYTES,
        "max_in_flight": settings.SUBMISSION_MAX_IN_FLIGHT,
        "max_per_hour": settings.SUBMISSION_MAX_PER_HOUR,
    }
    return render(request, "web/submit.html", context, status=status)


# --- one submission ---------------------------------------------------------------------------------------


def _visible_submission(request: HttpRequest, submission_id: int):
    submission = _or_404(submission_for_page, submission_id=submission_id)
    if not can_see_submission(request.user, submission):
        # As absent as a missing one: whether a private submission exists is not for others to learn.
        raise Http404(f"There is no submission #{submission_id}.")
    return submission


def _status(submission) -> dict:
    run = run_of(submission)
    now = timezone.now()
    started = submission.started_at if submission.state == State.RUNNING else None
    wait = submission_queue_wait(submission=submission)
    typical = wait.typical_run_s if wait else typical_run_seconds(submission=submission) if started else None
    return {
        "id": submission.pk,
        "state": submission.state,
        "final": submission.is_final,
        "queue_position": submission_queue_position(submission=submission),
        "waiting_ahead": wait.waiting_ahead if wait else None,
        "running_now": wait.running if wait else None,
        "wait_estimate_s": round(wait.estimate_s, 1) if wait and wait.estimate_s is not None else None,
        # A run of this problem and mode usually takes this long: the progress bar's scale.
        "typical_run_s": round(typical, 1) if typical is not None else None,
        "attempts": submission.attempts,
        # Queued for a device kind that no worker serves now: it waits, or is taken off the queue in time.
        "unserved": submission.state == State.QUEUED
        and judging_queue(submission.device_kind, submission.mode) not in served_device_kinds(),
        "message": redact_paths(submission.message),
        "plan": case_counts(submission=submission),
        "wall_limit_s": MODE_LIMITS[judged_as(submission.mode)].wall_s,
        "elapsed_s": round((now - started).total_seconds(), 1) if started else None,
        "heartbeat_age_s": round((now - submission.heartbeat_at).total_seconds(), 1)
        if submission.heartbeat_at and not submission.is_final
        else None,
        "verdict": run.verdict if run else None,
        "score_s": run.score_s if run else None,
        # The judge's last finished case while it runs ("benchmark 3 of 4 passed · ... · 12.3 us"), and
        # the bar's true share.
        "progress": live_progress(submission),
    }


@require_safe
def submission_status(request: HttpRequest, submission_id: int) -> JsonResponse:
    """What the submission page polls while the submission is queued or running (session-authenticated,
    unlike the API's token-authenticated endpoint; the same visibility as the page)."""
    submission = _visible_submission(request, submission_id)
    response = JsonResponse(_status(submission))
    response["Cache-Control"] = "no-store"
    return response


@require_safe
def submission_detail(request: HttpRequest, submission_id: int) -> HttpResponse:
    submission = _visible_submission(request, submission_id)
    run = run_of(submission)
    report = run.report if run else {}
    cases = list(run.cases.all()) if run else []
    source_visible = can_see_source(request.user, submission)
    profiles_visible = can_see_profiles(request.user, submission)
    source = source_of(submission=submission) if source_visible else None
    error_line = syntax_error_line(report)
    timed = [
        CaseTiming(
            case_label(c.case_id),
            c.kind,
            c.mean_s,
            c.stderr_s,
            (c.stats or {}).get("min"),
            (c.stats or {}).get("max"),
            c.floor_s,
        )
        for c in cases
        if c.mean_s
    ]
    context = {
        "submission": submission,
        "problem": submission.problem_version.problem,
        "run": run,
        "report": report,
        # The runner's text report repeats the tables: cut them for a viewer who may not see them.
        "report_text": report_text(report if profiles_visible else {**report, "profiles": []}) if run else "",
        "case_rows": case_rows([c for c in cases if c.status != "skipped"], submission.device_kind),
        "skipped": skipped_cases(cases),
        # Timing columns only where a case was timed: a test-mode run has none.
        "timed": any(c.stats for c in cases),
        "counts": status_counts(cases),
        "chart": case_chart(timed) if timed else None,
        "peak": DEVICE_KINDS.get(submission.device_kind),
        "energy_measured": any((c.stats or {}).get("joules_per_call") for c in cases),
        "flags": [flag_view(f) for f in (run.flags if run else [])],
        "env": public_env(report.get("env") or {}),
        "limits": [(k, limit_text(k, v)) for k, v in sorted((report.get("limits") or {}).items())],
        "source_visible": source_visible,
        "source": highlight(source.text, line_numbers=True, mark_line=error_line) if source else None,
        "error_line": error_line if source else None,
        "can_edit": editable_submission(request.user, submission.pk) is not None,
        # Only the diffs that have another source to show: a first submission has no previous one.
        "diff_targets": [a for a in ("previous", "best") if comparison_target(request.user, submission, a)]
        if source_visible
        else [],
        "can_cancel": submission.state == State.QUEUED and request.user.pk == submission.user_id,
        "source_meta": source,
        "deadline": problem_deadline(submission.problem_version.problem),
        "history": submission_history(submission=submission),
        "status": _status(submission),
        "status_json": json.dumps(_status(submission), default=str),
        "is_current_version": submission.problem_version_id
        == submission.problem_version.problem.current_version_id,
        "agent_run": agent_run_of(submission=submission) if submission.user.is_agent else None,
        "standing": standing_of(submission) if run else None,
        "profiles": profiles_of(run) if profiles_visible else [],
    }
    return render(request, "web/submission_detail.html", context)


@login_required(login_url=LOGIN)
@require_POST
def submission_cancel_view(request: HttpRequest, submission_id: int) -> HttpResponse:
    """The author takes a queued submission off the queue (another user's is as absent as a missing one)."""
    try:
        submission_cancel(user=request.user, submission_id=submission_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except Conflict as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Submission #{submission_id} is cancelled: it will not be judged.")
    return redirect("web:submission", submission_id=submission_id)


@require_safe
def submission_source(request: HttpRequest, submission_id: int) -> HttpResponse:
    submission = _visible_submission(request, submission_id)
    if not can_see_source(request.user, submission):
        raise Http404("This source is visible to its author and staff only.")
    source = source_of(submission=submission)
    response = HttpResponse(source.text, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="submission_{submission.pk}.py"'
    return response


@require_safe
def submission_profile_csv(request: HttpRequest, submission_id: int, number: int) -> HttpResponse:
    """A profile run's table as CSV, for its author and staff; as absent as a missing one for anyone else."""
    submission = _visible_submission(request, submission_id)
    if not can_see_profiles(request.user, submission):
        raise Http404(f"There is no profile of submission #{submission_id} for you.")
    profile = _or_404(profile_csv_of, run=run_of(submission), submission_id=submission.pk, number=number)
    response = HttpResponse(profile.csv, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{profile.filename(submission.pk)}"'
    return response


@require_safe
def submission_diff(request: HttpRequest, submission_id: int) -> HttpResponse:
    """A unified diff of this submission's source against another's, for a viewer who may see both."""
    submission = _visible_submission(request, submission_id)
    against = request.GET.get("against", "previous")
    other = (
        comparison_target(request.user, submission, against)
        if can_see_source(request.user, submission)
        else None
    )
    if other is None:
        raise Http404(f"There is no source to compare #{submission_id} with ({against}).")
    rows = source_diff(source_of(submission=other).text, source_of(submission=submission).text)
    context = {"submission": submission, "other": other, "against": against, "rows": rows}
    return render(request, "web/submission_diff.html", context)


# --- users and accounts -----------------------------------------------------------------------------------


@require_safe
def user_detail(request: HttpRequest, username: str) -> HttpResponse:
    user = get_object_or_404(get_user_model(), username=username, is_active=True)
    page = Paginator(user_submissions(user=user, viewer=request.user), 50).get_page(request.GET.get("page"))
    return render(
        request,
        "web/user_detail.html",
        {
            "shown_user": user,
            "best_entries": user_best_entries(user=user),
            "page": page,
            "sees_all": request.user.is_authenticated
            and (request.user.is_staff or request.user.pk == user.pk),
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("web:user", username=request.user.username)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Pick a problem and submit a kernel.")
        return redirect("web:problems")
    return render(request, "web/signup.html", {"form": form}, status=400 if form.errors else 200)


class SignInView(LoginView):
    template_name = "web/login.html"
    next_page = reverse_lazy("web:problems")
    redirect_authenticated_user = True


class SignOutView(LogoutView):
    next_page = reverse_lazy("web:problems")


@login_required(login_url=LOGIN)
@require_http_methods(["GET", "HEAD", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """The user's API tokens: make one (shown once, on the page that follows), revoke one."""
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            _, token = api_token_create(user=request.user, name=form.cleaned_data["name"])
            request.session[_TOKEN_SESSION_KEY] = token
            return redirect("web:tokens")
    else:
        form = TokenForm()
    return render(
        request,
        "web/tokens.html",
        {
            "form": form,
            "new_token": request.session.pop(_TOKEN_SESSION_KEY, None),
            "tokens": api_tokens_of(user=request.user),
            "api_url": request.build_absolute_uri("/api/"),
            # What KERNELBOARD_URL should be for the command line: this server, as the browser reached it.
            "server_url": request.build_absolute_uri("/").rstrip("/"),
        },
    )


@login_required(login_url=LOGIN)
@require_http_methods(["GET", "HEAD", "POST"])
def account_email(request: HttpRequest) -> HttpResponse:
    """The account's email address, where password reset links go."""
    form = EmailForm(request.POST or None, user=request.user, initial={"email": request.user.email})
    if request.method == "POST" and form.is_valid():
        user_email_set(user=request.user, email=form.cleaned_data["email"])
        messages.success(
            request,
            f"Password reset links now go to {request.user.email}."
            if request.user.email
            else "No email address: password reset links go nowhere.",
        )
        return redirect("web:account_email")
    return render(request, "web/account_email.html", {"form": form}, status=400 if form.errors else 200)


@login_required(login_url=LOGIN)
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = _or_404(api_token_of, user=request.user, token_id=token_id)
    api_token_revoke(token=token)
    messages.success(
        request, f"The token {token.hint}… is revoked; requests with it are refused from now on."
    )
    return redirect(reverse("web:tokens"))

"""The staff's review page in the admin: flagged runs with their evidence in view, accept or reject them,
rejudge any finished submission. The writes are leaderboard.submissions.review's; nothing here edits a row."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html

from leaderboard.errors import Refusal
from leaderboard.submissions.models import State
from leaderboard.submissions.review import (
    submission_accept_flagged,
    submission_reject_flagged,
    submission_rejudge,
)
from leaderboard.web.code import highlight
from leaderboard.web.models import SubmissionReview
from leaderboard.web.selectors import run_of


class NeedsReviewFilter(admin.SimpleListFilter):
    """Flagged submissions first: what the page is for. "All" shows every submission (to rejudge)."""

    title = "review"
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [("flagged", "Flagged: needs a decision"), ("all", "All submissions")]

    def choices(self, changelist):
        for value, label in self.lookup_choices:
            yield {
                "selected": (self.value() or "flagged") == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request, queryset):
        if (self.value() or "flagged") == "flagged":
            return queryset.filter(state=State.FLAGGED)
        return queryset


@admin.register(SubmissionReview)
class SubmissionReviewAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "user",
        "problem",
        "device_kind",
        "mode",
        "state",
        "score",
        "flag_kinds",
        "created_at",
    )
    list_filter = (NeedsReviewFilter, "state", "device_kind", "mode")
    list_select_related = ("user", "problem_version__problem", "run")
    search_fields = ("user__username", "id")
    actions = ("accept", "reject", "rejudge")
    readonly_fields = ("summary", "evidence", "cases", "scan", "source_code", "logs")
    fields = readonly_fields
    change_form_template = "admin/web/submissionreview/change_form.html"

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        """Nothing on the page is editable: decisions go through the services, in response_change."""

    # --- columns ----------------------------------------------------------------------------------------

    @admin.display(description="problem")
    def problem(self, obj):
        return obj.problem_version.problem.name

    @admin.display(description="score")
    def score(self, obj):
        run = run_of(obj)
        return f"{run.score_s:.4g} s" if run and run.score_s else "-"

    @admin.display(description="flags")
    def flag_kinds(self, obj):
        run = run_of(obj)
        return ", ".join(f.get("kind", "?") for f in run.flags) if run and run.flags else "-"

    # --- the evidence -----------------------------------------------------------------------------------

    def _render(self, part: str, obj, **context):
        run = run_of(obj)
        return render_to_string(
            f"admin/web/submissionreview/{part}.html",
            {"submission": obj, "run": run, "report": run.report if run else {}, **context},
        )

    @admin.display(description="submission")
    def summary(self, obj):
        return self._render("summary", obj, page=reverse("web:submission", args=[obj.pk]))

    @admin.display(description="flags and evidence")
    def evidence(self, obj):
        return self._render("evidence", obj)

    @admin.display(description="cases")
    def cases(self, obj):
        run = run_of(obj)
        return self._render("cases", obj, cases=list(run.cases.all()) if run else [])

    @admin.display(description="static scan")
    def scan(self, obj):
        return self._render("scan", obj)

    @admin.display(description="source")
    def source_code(self, obj):
        return format_html(
            "<div class='review-source'>{}</div>", highlight(obj.source.text, line_numbers=True)
        )

    @admin.display(description="logs (capped)")
    def logs(self, obj):
        run = run_of(obj)
        text = (run.report or {}).get("logs", "") if run else ""
        return format_html('<pre class="review-logs">{}</pre>', text or "(nothing printed)")

    # --- decisions --------------------------------------------------------------------------------------

    def _decide(self, request: HttpRequest, decide, ids, done: str, **kwargs) -> None:
        changed, refused = 0, []
        for pk in ids:
            try:
                decide(submission_id=pk, reviewer=request.user, **kwargs)
                changed += 1
            except Refusal as exc:
                refused.append(exc.message)
        if changed:
            self.message_user(request, f"{changed} submission(s) {done}.", messages.SUCCESS)
        for message in refused:
            self.message_user(request, message, messages.WARNING)

    @admin.action(description="Accept the flagged run (it ranks)", permissions=["change"])
    def accept(self, request, queryset: QuerySet):
        self._decide(request, submission_accept_flagged, queryset.values_list("pk", flat=True), "accepted")

    @admin.action(description="Reject the flagged run (it never ranks)", permissions=["change"])
    def reject(self, request, queryset: QuerySet):
        self._decide(request, submission_reject_flagged, queryset.values_list("pk", flat=True), "rejected")

    @admin.action(description="Rejudge (delete the run, queue it again)", permissions=["change"])
    def rejudge(self, request, queryset: QuerySet):
        self._decide(request, submission_rejudge, queryset.values_list("pk", flat=True), "queued again")

    def response_change(self, request, obj):
        note = request.POST.get("review_note", "").strip()
        for button, decide, done, extra in (
            ("_accept", submission_accept_flagged, "accepted", {"note": note}),
            ("_reject", submission_reject_flagged, "rejected", {"note": note}),
            ("_rejudge", submission_rejudge, "queued again", {}),
        ):
            if button in request.POST:
                self._decide(request, decide, [obj.pk], done, **extra)
                return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.utils import timezone

from leaderboard.submissions.models import Attempt, Run, RunCase, State, Submission, Worker
from leaderboard.submissions.services import submission_operator_end, submission_operator_requeue


class RunCaseInline(admin.TabularInline):
    model = RunCase
    extra = 0
    can_delete = False
    readonly_fields = ("position", "case_id", "kind", "status", "message", "mean_s", "stderr_s", "floor_s")
    fields = readonly_fields


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    readonly_fields = (
        "number",
        "worker",
        "started_at",
        "ended_at",
        "outcome",
        "reason",
        "late_result_dropped",
    )
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False


class HeartbeatFilter(admin.SimpleListFilter):
    """Running submissions whose worker has gone quiet: what the sweeper will take back next."""

    title = "heartbeat"
    parameter_name = "heartbeat"

    def lookups(self, request, model_admin):
        return [("stale", "running, heartbeat stopped"), ("beating", "running, beating")]

    def queryset(self, request, queryset):
        cutoff = timezone.now() - timedelta(seconds=settings.HEARTBEAT_TIMEOUT_S)
        if self.value() == "stale":
            return queryset.filter(state=State.RUNNING, heartbeat_at__lt=cutoff)
        if self.value() == "beating":
            return queryset.filter(state=State.RUNNING, heartbeat_at__gte=cutoff)
        return queryset


class RetriedFilter(admin.SimpleListFilter):
    title = "attempts"
    parameter_name = "retried"

    def lookups(self, request, model_admin):
        return [("yes", "more than one attempt")]

    def queryset(self, request, queryset):
        return queryset.filter(attempts__gt=1) if self.value() == "yes" else queryset


class ReasonForm(ActionForm):
    reason = forms.CharField(
        required=False,
        label="Reason (for “end”; the author reads it)",
        widget=forms.TextInput(attrs={"size": 50}),
    )


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "user",
        "problem_version",
        "device_kind",
        "mode",
        "language",
        "state",
        "attempts",
        "worker",
        "created_at",
    )
    list_filter = ("state", "device_kind", HeartbeatFilter, RetriedFilter, "mode", "language")
    search_fields = ("user__username", "source__sha256", "worker")
    raw_id_fields = ("user", "problem_version", "source")
    readonly_fields = ("attempts", "worker", "heartbeat_at", "enqueued_at", "started_at", "finished_at")
    inlines = [AttemptInline]
    action_form = ReasonForm
    actions = ["requeue", "end_with_reason"]

    @admin.action(description="Queue again (running: end this attempt; queued: send its id again)")
    def requeue(self, request, queryset):
        done = [
            submission_operator_requeue(submission_id=pk, operator=request.user.get_username())
            for pk in queryset.values_list("pk", flat=True)
        ]
        self.message_user(
            request,
            f"{done.count(State.QUEUED)} queued again, {done.count('resent')} sent again, "
            f"{done.count('unchanged')} left as they were (already final).",
            messages.SUCCESS,
        )

    @admin.action(description="End as error, with the reason given")
    def end_with_reason(self, request, queryset):
        reason = request.POST.get("reason", "").strip()
        if not reason:
            self.message_user(request, "Give a reason: the author reads it.", messages.ERROR)
            return
        done = [
            submission_operator_end(submission_id=pk, operator=request.user.get_username(), reason=reason)
            for pk in queryset.values_list("pk", flat=True)
        ]
        self.message_user(
            request,
            f"{done.count(State.ERROR)} ended, {done.count('unchanged')} were final already.",
            messages.SUCCESS,
        )


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("submission", "verdict", "score_s", "public_passed", "secret_passed", "flagged", "worker")
    list_filter = ("verdict", "flagged")
    raw_id_fields = ("submission",)
    inlines = [RunCaseInline]


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    """The workers as they record themselves (leaderboard/submissions/workers.py): read-only; a row whose
    beat is older than WORKER_STALE_AFTER_S serves nothing. Deleting a stopped worker's row forgets it."""

    list_display = ("name", "device_kinds", "started_at", "beat_at", "stopped_at", "serving")
    ordering = ("device_kinds", "name")
    readonly_fields = ("name", "device_kinds", "started_at", "beat_at", "stopped_at")

    @admin.display(boolean=True)
    def serving(self, worker: Worker) -> bool:
        fresh = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER_S)
        return worker.stopped_at is None and worker.beat_at >= fresh

    def has_add_permission(self, request):
        return False

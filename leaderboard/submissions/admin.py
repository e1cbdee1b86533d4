from django.contrib import admin

from leaderboard.submissions.models import Run, RunCase, Submission


class RunCaseInline(admin.TabularInline):
    model = RunCase
    extra = 0
    can_delete = False
    readonly_fields = ("position", "case_id", "kind", "status", "message", "mean_s", "stderr_s", "floor_s")
    fields = readonly_fields


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
        "created_at",
    )
    list_filter = ("state", "device_kind", "mode", "language")
    search_fields = ("user__username", "source__sha256")
    raw_id_fields = ("user", "problem_version", "source")
    readonly_fields = ("attempts", "worker", "heartbeat_at", "enqueued_at", "started_at", "finished_at")


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("submission", "verdict", "score_s", "public_passed", "secret_passed", "flagged", "worker")
    list_filter = ("verdict", "flagged")
    raw_id_fields = ("submission",)
    inlines = [RunCaseInline]

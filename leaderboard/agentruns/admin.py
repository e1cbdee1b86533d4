from django.contrib import admin

from leaderboard.agentruns.models import AgentRun, AgentStep


@admin.register(AgentRun)
class AgentRunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "problem",
        "device_kind",
        "policy",
        "variant",
        "state",
        "best_runtime_s",
        "started_at",
    )
    list_filter = ("state", "policy", "problem")


@admin.register(AgentStep)
class AgentStepAdmin(admin.ModelAdmin):
    list_display = ("run", "step", "mean_reward", "best_reward", "best_runtime_s", "passed", "candidates")

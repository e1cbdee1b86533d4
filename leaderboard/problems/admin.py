from django.contrib import admin

from leaderboard.problems.models import Problem, ProblemVersion


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ("name", "title", "current_version", "is_active", "updated_at")


@admin.register(ProblemVersion)
class ProblemVersionAdmin(admin.ModelAdmin):
    list_display = ("problem", "content_hash", "title", "created_at")
    list_filter = ("problem",)
    readonly_fields = ("content_hash", "created_at")

"""Staff make and edit contests here: problems, start, end, the judging grace. A frozen contest's final
board is shown read-only; "Compute the final standings again" drops it (after a verdict in the contest
changed), and the next read of the contest stores it anew."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone

from leaderboard.contests.models import Contest, FinalEntry
from leaderboard.contests.services import contest_unfreeze


class FinalEntryInline(admin.TabularInline):
    model = FinalEntry
    fields = ("problem", "device_kind", "rank", "username", "score_s", "submission", "submitted_at")
    readonly_fields = fields
    can_delete = False
    extra = 0
    max_num = 0


class ContestForm(forms.ModelForm):
    class Meta:
        model = Contest
        fields = ("name", "title", "description", "problems", "starts_at", "ends_at", "judging_grace")
        widgets = {"problems": forms.CheckboxSelectMultiple}


@admin.register(Contest)
class ContestAdmin(admin.ModelAdmin):
    form = ContestForm
    list_display = ("name", "title", "starts_at", "ends_at", "state", "frozen_at")
    readonly_fields = ("frozen_at", "created_at")
    search_fields = ("name", "title")
    inlines = [FinalEntryInline]
    actions = ["compute_again"]

    @admin.display(description="state")
    def state(self, contest: Contest) -> str:
        return contest.phase(timezone.now()).label

    @admin.action(description="Compute the final standings again (drop the stored board)")
    def compute_again(self, request, queryset):
        for contest in queryset:
            contest_unfreeze(contest=contest)
        messages.success(
            request,
            f"Dropped the stored final board of {queryset.count()} contest(s); each is frozen again from "
            "the current verdicts at its next read.",
        )

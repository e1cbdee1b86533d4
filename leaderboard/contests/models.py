"""Contests: one or more problems ranked over a window of time, with a final board stored at the end.

A contest ranks the leaderboard-mode submissions made between its start and its end by the rankings' own
score and eligibility (leaderboard.submissions.selectors, bounded in time); once it has ended and every
submission made in it has its verdict, the standings are stored as FinalEntry rows and never recomputed.
docs/platform.md, "Contests", tells the story."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models

from leaderboard.submissions.models import DeviceKind


class Phase(models.TextChoices):
    UPCOMING = "upcoming", "upcoming"
    RUNNING = "running", "running"
    # Ended, while submissions made before the end are still being judged: the board may still change.
    JUDGING = "judging", "ended, judging the last submissions"
    FINAL = "final", "final"


class Contest(models.Model):
    name = models.SlugField(unique=True, help_text="Its address: /contests/<name>/.")
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, help_text="Shown above the board; plain text.")
    problems = models.ManyToManyField("problems.Problem", related_name="contests")
    starts_at = models.DateTimeField(help_text="Submissions made from this moment (UTC) count.")
    ends_at = models.DateTimeField(help_text="Submissions made before this moment (UTC) count.")
    judging_grace = models.DurationField(
        default=timedelta(hours=1),
        help_text="How long after the end the board waits for the verdicts of submissions made before it "
        "(queued or running at the end); whatever is still unjudged then is left out of the final board.",
    )
    # Set once, when the final standings are stored (services.contest_freeze); the board is then final.
    frozen_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")),
                name="contest_ends_after_it_starts",
                violation_error_message="A contest must end after it starts.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def grace_ends_at(self) -> datetime:
        """When the final board is stored at the latest, whatever is still being judged."""
        return self.ends_at + self.judging_grace

    def phase(self, now: datetime) -> Phase:
        if self.frozen_at is not None:
            return Phase.FINAL
        if now < self.starts_at:
            return Phase.UPCOMING
        if now < self.ends_at:
            return Phase.RUNNING
        return Phase.JUDGING


class FinalEntry(models.Model):
    """One line of a contest's final board, as it stood when the contest was frozen."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="final_entries")
    problem = models.ForeignKey("problems.Problem", on_delete=models.PROTECT, related_name="+")
    device_kind = models.CharField(max_length=16, choices=DeviceKind.choices)
    rank = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    username = models.CharField(max_length=150)  # as it was at the freeze
    is_agent = models.BooleanField(default=False)
    score_s = models.FloatField()
    score_low_s = models.FloatField(null=True, blank=True)  # the score's 95 % interval, as ranked
    score_high_s = models.FloatField(null=True, blank=True)
    tied_with = models.JSONField(default=list, blank=True)  # usernames sharing its rank (overlapping)
    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    language = models.CharField(max_length=16)
    submitted_at = models.DateTimeField()

    class Meta:
        ordering = ["contest", "problem__name", "device_kind", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["contest", "problem", "device_kind", "user"], name="one_final_entry_per_user"
            )
        ]
        verbose_name_plural = "final entries"

    def __str__(self) -> str:
        return f"{self.contest.name} {self.problem_id} {self.device_kind} #{self.rank} {self.username}"

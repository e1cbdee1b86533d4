"""Problems, synced from the problems/ folders. Each content hash is its own ProblemVersion, so that
scores measured against one version never mix with another's."""

from __future__ import annotations

from django.db import models


class Problem(models.Model):
    name = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    current_version = models.ForeignKey(
        "ProblemVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The folder's about.toml (runner.problem.About): the listing, refreshed by every sync, in no version.
    difficulty = models.CharField(max_length=16, blank=True)  # easy | medium | hard | ""
    tags = models.JSONField(default=list, blank=True)  # short lower-case words
    # False once the folder is gone: its submissions and rankings stay, new submissions are refused.
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ProblemVersion(models.Model):
    """One content hash of a problem (runner.problem.Problem.version): what decides verdicts and scores."""

    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="versions")
    content_hash = models.CharField(max_length=64)
    title = models.CharField(max_length=200)
    statement = models.TextField(blank=True)  # markdown
    tolerance = models.CharField(max_length=300, blank=True)
    # {"cpu": {"test": [case, ...], "benchmark": [...]}, "cuda": {...}}; case = {"id", "params", "seed"}
    cases = models.JSONField(default=dict)
    templates = models.JSONField(default=dict)  # file name -> source text
    reference_source = models.TextField(blank=True)
    task_source = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["problem", "content_hash"], name="one_version_per_content_hash")
        ]
        ordering = ["problem", "-created_at"]

    def __str__(self) -> str:
        return f"{self.problem.name}@{self.content_hash}"


class ReferenceScore(models.Model):
    """The reference's own leaderboard score on one device kind, for one problem version: the baseline the
    problem page shows beside the rankings (`manage.py judge_references` on a worker host of that kind)."""

    version = models.ForeignKey(ProblemVersion, on_delete=models.CASCADE, related_name="reference_scores")
    device_kind = models.CharField(max_length=16)
    score_s = models.FloatField()
    score_low_s = models.FloatField(null=True, blank=True)  # the score's 95 % interval
    score_high_s = models.FloatField(null=True, blank=True)
    measured_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "device_kind"], name="one_reference_score_per_kind")
        ]
        ordering = ["version", "device_kind"]

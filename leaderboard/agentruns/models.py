"""Runs of the built-in TTT-Discover agents and their steps. The agent's final entry is an ordinary
Submission of its agent user (accounts.User.is_agent), judged and ranked like anyone's."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AgentRun(models.Model):
    class State(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"  # all steps done (and the best entered, unless the run was told not to)
        FAILED = "failed"  # stopped by an error; `message` says which

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="agent_runs")
    problem = models.CharField(max_length=100)
    device_kind = models.CharField(max_length=16)
    policy = models.CharField(max_length=16)  # offline | llm
    variant = models.CharField(max_length=32, default="ttt-discover")  # agents.loop.ABLATIONS
    steps = models.PositiveIntegerField()
    groups = models.PositiveIntegerField()
    rollouts = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    config = models.JSONField(default=dict)  # agents.loop.RunConfig as saved
    out_dir = models.CharField(max_length=500)  # where the archive and the policy are saved each step
    state = models.CharField(max_length=16, choices=State.choices, default=State.RUNNING)
    message = models.TextField(blank=True)
    reference_s = models.FloatField(null=True, blank=True)  # the seed's runtime: reward 1
    best_runtime_s = models.FloatField(null=True, blank=True)
    best_kernels = models.JSONField(default=list)  # the archive's best states, with lineage and code
    submission = models.ForeignKey(
        "submissions.Submission", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"agent run #{self.pk} {self.policy} on {self.problem}/{self.device_kind}"

    @property
    def speedup(self) -> float | None:
        if self.reference_s and self.best_runtime_s:
            return self.reference_s / self.best_runtime_s
        return None


class AgentStep(models.Model):
    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="agent_steps")
    step = models.PositiveIntegerField()
    mean_reward = models.FloatField()
    max_reward = models.FloatField()
    best_reward = models.FloatField()
    best_runtime_s = models.FloatField(null=True, blank=True)
    passed = models.PositiveIntegerField()
    candidates = models.PositiveIntegerField()
    seconds = models.FloatField()
    record = models.JSONField(default=dict)  # agents.loop.StepRecord, whole

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="one_record_per_step")]

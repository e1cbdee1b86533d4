"""Submissions, their sources, and the run that judged each.

A submission's life: queued -> running -> passed | failed | error | timeout | rejected | flagged.
The row is the truth; the broker carries only its id. A worker claims it with a conditional UPDATE and
writes the run and the final state in one transaction, so that a submission is judged at most once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from runner import vocabulary
from runner.vocabulary import DEVICE_KINDS, Verdict

# Device kinds, modes and verdicts come from runner/vocabulary.py, the one table of each.
DeviceKind = models.TextChoices("DeviceKind", [(k.upper(), (k, d.label)) for k, d in DEVICE_KINDS.items()])
# The runner's modes, and the exploration tier's (an agent's candidates: judged as a benchmark, on a queue and
# a quota of their own, never ranked; docs/platform.md, "The exploration tier").
Mode = models.TextChoices(
    "Mode",
    [(m.name, (m.value, m.label)) for m in vocabulary.Mode]
    + [("EXPLORE", (vocabulary.EXPLORE, vocabulary.EXPLORE_LABEL))],
)
# A submission's state: queued, running, then its run's verdict; or cancelled, never judged (its author took
# it off the queue, or no worker served its device kind for SUBMISSION_UNSERVED_TIMEOUT_S).
State = models.TextChoices(
    "State",
    [("QUEUED", "queued"), ("RUNNING", "running")]
    + [(v.name, v.value) for v in Verdict]
    + [("CANCELLED", "cancelled")],
)
VERDICT_STATES = tuple(v.value for v in Verdict)  # what a judge's report may end a submission as
FINAL_STATES = (*VERDICT_STATES, State.CANCELLED)


class Language(models.TextChoices):
    PYTORCH = "pytorch", "PyTorch"
    TRITON = "triton", "Triton"
    CUDA = "cuda", "CUDA (torch inline extension)"


class Source(models.Model):
    """A submission's source text, in its own table so that listing submissions never loads sources."""

    text = models.TextField()
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.PositiveIntegerField()


class Submission(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem_version = models.ForeignKey(
        "problems.ProblemVersion", on_delete=models.PROTECT, related_name="submissions"
    )
    source = models.OneToOneField(Source, on_delete=models.PROTECT, related_name="submission")
    language = models.CharField(max_length=16, choices=Language.choices)
    device_kind = models.CharField(max_length=16, choices=DeviceKind.choices)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)  # claims so far; at most SUBMISSION_MAX_ATTEMPTS
    worker = models.CharField(max_length=200, blank=True)  # the worker that holds (or last held) it
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # Why it is where it is, in the user's words: the verdict's message, or why it was re-queued.
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # when its id was last sent to the broker
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # While it runs: the judge's last case finished, {"done", "total", "case", "status"} (advisory, for the
    # live view; the run's report is the truth). Written only by the worker that holds it; None until the
    # first case, and again when an attempt is taken back.
    progress = models.JSONField(null=True, blank=True)
    # Leaders judged again (docs/platform.md, "Leaders judged again"): a run that would enter a top
    # LEADERS_JUDGED_AGAIN is judged once more, with fresh secret seeds, before it ranks. The second judging
    # is a submission of its own (`confirms` the first; never ranked itself), and `confirmation` says
    # where the first stands: "" (not needed), pending, confirmed (it ranks on the slower of its secret
    # runs), or refuted (the second judging did not pass: it does not rank).
    confirms = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="confirmations"
    )
    confirmation = models.CharField(max_length=16, blank=True)
    # An exploration candidate whose identical code (same sha256, problem version, device kind and language)
    # was judged already: its run is a copy of that judging's, and no worker judged it again.
    shared_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="shared_with"
    )
    # False when the author asked for a fresh judging (`"reuse": false`): such a candidate is never given a
    # copy of another judging, neither when it is made nor when a worker claims it.
    reuse = models.BooleanField(default=True)

    class Meta:
        indexes = [
            models.Index(fields=["state", "device_kind", "created_at"], name="submission_queue"),
            models.Index(
                fields=["problem_version", "device_kind", "mode", "state"], name="submission_ranking"
            ),
            models.Index(fields=["user", "created_at"], name="submission_user_recent"),
            # The rankings read only these columns of ranked candidates: an index-only scan (PostgreSQL).
            models.Index(
                fields=["problem_version", "device_kind"],
                include=["id", "user", "created_at", "language"],
                condition=models.Q(mode="leaderboard", state="passed"),
                name="submission_ranked_candidates",
            ),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem_version} {self.device_kind} {self.mode} {self.state}"

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES


class Run(models.Model):
    """The one judging of a submission: the runner's report, whole, and what rankings need of it."""

    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="run")
    verdict = models.CharField(max_length=16)
    message = models.TextField(blank=True)
    score_s = models.FloatField(null=True, blank=True)  # runner.report.SCORE_DEFINITION
    # Its 95 % interval, and what limits it in words (runner/judge/timing.py); None for runs judged before
    # intervals were kept, which then rank on their score alone.
    score_low_s = models.FloatField(null=True, blank=True)
    score_high_s = models.FloatField(null=True, blank=True)
    score_note = models.TextField(blank=True)
    public_passed = models.BooleanField(default=False)  # every test and benchmark case passed
    secret_passed = models.BooleanField(default=False)  # the secret run's cases ran and all passed
    flagged = models.BooleanField(default=False)
    flags = models.JSONField(default=list)
    report = models.JSONField()  # RunReport.to_dict()
    worker = models.CharField(max_length=200)
    attempt = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(
                fields=["submission"],
                include=["score_s"],
                condition=models.Q(
                    verdict="passed", public_passed=True, secret_passed=True, flagged=False, score_s__gt=0
                ),
                name="run_ranked",
            )
        ]

    def __str__(self) -> str:
        return f"run of #{self.submission_id}: {self.verdict}"


class RunCase(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="cases")
    position = models.PositiveSmallIntegerField()
    case_id = models.CharField(max_length=300)  # pytest-style, e.g. "vectoradd[size=128]"
    kind = models.CharField(max_length=16)  # test | benchmark | secret
    status = models.CharField(max_length=16)
    message = models.TextField(blank=True)
    mean_s = models.FloatField(null=True, blank=True)
    stderr_s = models.FloatField(null=True, blank=True)
    median_s = models.FloatField(null=True, blank=True)  # what the score uses, with its 95 % interval
    median_low_s = models.FloatField(null=True, blank=True)
    median_high_s = models.FloatField(null=True, blank=True)
    stats = models.JSONField(null=True, blank=True)
    floor_s = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "position"], name="one_case_per_position")]


class Outcome(models.TextChoices):
    """How one attempt at judging a submission ended."""

    RUNNING = "running", "still running"
    FINISHED = "finished", "finished"
    TAKEN_BACK = "taken_back", "taken back"  # its worker stopped responding; the sweeper took it back
    GIVEN_BACK = "given_back", "given back"  # its worker could not judge it (a fault of the platform's)
    ENDED = "ended", "ended by an operator"


class Attempt(models.Model):
    """One claim of a submission by a worker, kept after the submission ends: the history that the
    submission's single `message` cannot hold (a re-queue's reason is overwritten by the verdict)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="attempt_history")
    number = models.PositiveSmallIntegerField()  # 1, 2, ... as Submission.attempts counted it
    worker = models.CharField(max_length=200)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.RUNNING)
    reason = models.TextField(blank=True)  # why it ended so, in the user's words
    # The worker finished after all, once the attempt had been taken back: its report was dropped.
    late_result_dropped = models.BooleanField(default=False)

    class Meta:
        ordering = ["submission", "number"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "number"], name="one_attempt_per_number")
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of #{self.submission_id} on {self.worker}: {self.outcome}"


class Beat(models.Model):
    """When a long-lived loop (the sweeper) last completed a round: what the health check reads."""

    name = models.CharField(max_length=100, primary_key=True)
    at = models.DateTimeField()


class Tally(models.Model):
    """Counters of events that happen in worker processes (a duplicate delivery, a failed heartbeat, a late
    result dropped, a resend), kept in the database so that any web process can report the cluster's
    totals on /metrics."""

    name = models.CharField(max_length=100, primary_key=True)
    value = models.BigIntegerField(default=0)


class Worker(models.Model):
    """A judging worker as it last reported itself: the device kinds it serves and when it last beat. Each
    worker process writes its own row (leaderboard/submissions/workers.py); the submit form, the API and the
    sweeper read from these rows which device kinds can be judged now, at the cost of one query."""

    name = models.CharField(max_length=200, primary_key=True)  # Celery's hostname, e.g. h100-gpu0@host
    device_kinds = models.CharField(max_length=200)  # the judging queues it consumes, comma-separated
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()
    stopped_at = models.DateTimeField(null=True, blank=True)  # a clean shutdown: it serves nothing from then

    def __str__(self) -> str:
        return f"{self.name} ({self.device_kinds})"

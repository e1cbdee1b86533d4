"""Writes of submissions: create, enqueue, claim, heartbeat, judge, finish, take back, sweep.

Every change of state is a compare-and-set UPDATE on the row (`filter(state=..., worker=...).update(...)`),
so that a duplicate delivery, a late worker or a second sweeper finds nothing to change: no submission is
judged twice, none stays `running` forever.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import pkgutil
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from leaderboard.errors import LimitReached, Refusal, SourceTooLarge
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions.models import (
    DeviceKind,
    Language,
    Mode,
    Run,
    RunCase,
    Source,
    State,
    Submission,
)
from runner.spec import JobSpec, RunReport, Verdict

logger = logging.getLogger(__name__)

JUDGE_TASK = "leaderboard.judge"


def _choice(value: str, choices: type, what: str) -> str:
    if value not in choices.values:
        allowed = ", ".join(choices.values)
        raise Refusal(f"{what} {value!r} is not one we know; choose one of: {allowed}.")
    return value


def _check_limits(*, user, now: datetime) -> None:
    in_flight_limit = settings.SUBMISSION_MAX_IN_FLIGHT
    if in_flight_limit:
        in_flight = Submission.objects.filter(user=user, state__in=(State.QUEUED, State.RUNNING)).count()
        if in_flight >= in_flight_limit:
            raise LimitReached(
                f"You have {in_flight} submissions queued or running, the most allowed at once; "
                "wait for one of them to finish, then submit again.",
                retry_after_s=30,
            )
    hourly_limit = settings.SUBMISSION_MAX_PER_HOUR
    if hourly_limit:
        window_start = now - timedelta(hours=1)
        recent = Submission.objects.filter(user=user, created_at__gt=window_start)
        count = recent.count()
        if count >= hourly_limit:
            oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
            wait_s = max(1, int((oldest - window_start).total_seconds()) + 1)
            raise LimitReached(
                f"You have made {count} submissions in the last hour, the most allowed; "
                f"you can submit again in {_duration_words(wait_s)}.",
                retry_after_s=wait_s,
            )


def _duration_words(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{round(seconds / 60)} minutes"


def submission_create(
    *, user, problem: str, device_kind: str, mode: str, language: str, source: str
) -> Submission:
    """Record a submission as queued, and send its id to its device kind's queue once the row is committed.

    Raises a Refusal (with the HTTP status to answer) for an unknown problem or choice, an empty or
    oversized source, or a user over their limits.
    """
    _choice(device_kind, DeviceKind, "The device kind")
    _choice(mode, Mode, "The mode")
    _choice(language, Language, "The language")
    size = len(source.encode())
    limit = settings.SUBMISSION_MAX_SOURCE_BYTES
    if size > limit:
        raise SourceTooLarge(f"The source is {size / 1024:.1f} KiB; the limit is {limit / 1024:.0f} KiB.")
    if not source.strip():
        raise Refusal("The source is empty; it should define custom_kernel(data).")
    if device_kind == DeviceKind.CPU and language == Language.CUDA:
        raise Refusal("CUDA submissions need a GPU: choose a GPU device kind such as h100.")
    if device_kind == DeviceKind.CPU and language == Language.TRITON and mode != Mode.TEST:
        raise Refusal(
            "On the cpu device Triton runs in its interpreter, which checks correctness but says nothing "
            "about speed: use mode test there, or a GPU device kind to benchmark or rank."
        )
    found = problem_get(name=problem)
    if not found.is_active:
        raise Refusal(f"The problem {problem!r} is closed to new submissions.")

    now = timezone.now()
    with transaction.atomic():
        # One user's submissions are created one at a time, so that two at once cannot both pass the limits.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        _check_limits(user=user, now=now)
        stored = Source.objects.create(
            text=source, sha256=hashlib.sha256(source.encode()).hexdigest(), size_bytes=size
        )
        submission = Submission.objects.create(
            user=user,
            problem_version=found.current_version,
            source=stored,
            language=language,
            device_kind=device_kind,
            mode=mode,
            state=State.QUEUED,
            created_at=now,
            enqueued_at=now,
        )
        transaction.on_commit(
            partial(submission_enqueue, submission_id=submission.pk, device_kind=device_kind)
        )
    return submission


def submission_enqueue(*, submission_id: int, device_kind: str) -> bool:
    """Send a submission's id to its device kind's queue. Never raises: if the broker cannot be reached
    the row stays queued and the sweeper sends it again (REQUEUE_AFTER_S)."""
    from leaderboard.celery import app

    try:
        app.send_task(JUDGE_TASK, args=[submission_id], queue=device_kind, retry=True)
        return True
    except Exception:  # the broker is down: the database row is the truth, the sweeper resends
        logger.warning(
            "could not send submission %s to the %s queue; the sweeper will resend it",
            submission_id,
            device_kind,
            exc_info=True,
        )
        return False


def submission_claim(*, submission_id: int, worker: str) -> Submission | None:
    """Take a queued submission for `worker` (queued -> running, attempts + 1, heartbeat). Returns None when
    there is nothing to take: a duplicate delivery, or a submission already running or final."""
    now = timezone.now()
    claimed = Submission.objects.filter(pk=submission_id, state=State.QUEUED).update(
        state=State.RUNNING, attempts=F("attempts") + 1, worker=worker, heartbeat_at=now, started_at=now
    )
    if not claimed:
        return None
    return Submission.objects.select_related("source", "problem_version__problem").get(pk=submission_id)


def submission_heartbeat(*, submission_id: int, worker: str) -> bool:
    """Tell the sweeper that `worker` is still judging the submission. False if it is no longer its own."""
    return bool(
        Submission.objects.filter(pk=submission_id, state=State.RUNNING, worker=worker).update(
            heartbeat_at=timezone.now()
        )
    )


class _Heartbeat:
    """Beats from its own thread (and database connection) while the runner works in the caller's."""

    def __init__(self, *, submission_id: int, worker: str, interval_s: float) -> None:
        self.submission_id, self.worker, self.interval_s = submission_id, worker, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{submission_id}", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval_s):
                try:
                    if not submission_heartbeat(submission_id=self.submission_id, worker=self.worker):
                        logger.warning(
                            "submission %s was taken back from %s", self.submission_id, self.worker
                        )
                        return
                except DatabaseError:  # a hiccup of the database must not stop the beating
                    logger.warning("heartbeat of submission %s failed", self.submission_id, exc_info=True)
        finally:
            connection.close()


@functools.cache
def _judge_function(path: str):
    # Resolved once per process, not per submission.
    return pkgutil.resolve_name(path)


def _execute(spec: JobSpec) -> RunReport:
    return _judge_function(settings.RUNNER_EXECUTE)(spec)


def submission_judge(*, submission_id: int, worker: str) -> str:
    """Claim, judge and finish one submission; what a worker does with each message. Returns what became of
    it: its final state, "queued" (given back for another attempt), or "not claimed" (nothing to do)."""
    submission = submission_claim(submission_id=submission_id, worker=worker)
    if submission is None:
        return "not claimed"
    version = submission.problem_version
    problem_name = version.problem.name
    mode = submission.mode
    spec = JobSpec(
        problem=problem_name,
        source=submission.source.text,
        mode=mode,
        device=DeviceKind(submission.device_kind).runner_device,
        sandbox=settings.RUNNER_SANDBOX,
        # A fresh secret seed per ranked run; it goes to the judge only and is never stored.
        secret_seed=secrets.randbits(63) if mode == Mode.LEADERBOARD else None,
        threads=settings.RUNNER_THREADS,
        device_kind=submission.device_kind,
        case_budget_s=settings.RUNNER_CASE_BUDGET_S,
    )
    try:
        with _Heartbeat(submission_id=submission_id, worker=worker, interval_s=settings.HEARTBEAT_INTERVAL_S):
            report = _judge_version_checked(spec, expected_version=version.content_hash)
    except SoftTimeLimitExceeded:
        report = RunReport(
            verdict=Verdict.TIMEOUT,
            message=f"Judging took longer than the platform's limit of {settings.JUDGE_SOFT_TIME_LIMIT_S} s "
            "and was stopped.",
            problem=problem_name,
            mode=mode,
            device=spec.device,
        )
    except Exception as exc:  # the runner promises not to raise for a bad submission: this is ours
        logger.exception("judging submission %s failed on %s", submission_id, worker)
        return submission_take_back(
            submission_id=submission_id,
            worker=worker,
            reason=f"the judge failed on {worker} ({type(exc).__name__}: {exc})",
        )
    if report.platform_fault:  # the run says nothing about the submission: another attempt, elsewhere
        logger.error("the judge failed on %s for submission %s: %s", worker, submission_id, report.message)
        return submission_take_back(
            submission_id=submission_id,
            worker=worker,
            reason=f"the judge failed on {worker}: {report.message}",
        )
    final = submission_finish(
        submission_id=submission_id,
        worker=worker,
        attempt=submission.attempts,
        report=report,
        started_at=submission.started_at,
    )
    return final or "taken back"


def _judge_version_checked(spec: JobSpec, *, expected_version: str) -> RunReport:
    """Run the runner, unless this machine's copy of the problem differs from the version submitted to: a
    score measured on another version must not enter this version's rankings."""
    from runner.problem import load_problem

    here = load_problem(spec.problem).version
    if here != expected_version:
        return RunReport(
            verdict=Verdict.ERROR,
            message=f"The problem {spec.problem!r} changed after this was submitted (version "
            f"{expected_version} then, {here} now), so it was not judged; please submit it again.",
            problem=spec.problem,
            mode=spec.mode,
            device=spec.device,
        )
    return _execute(spec)


def submission_finish(
    *, submission_id: int, worker: str, attempt: int, report: RunReport, started_at: datetime
) -> str | None:
    """Write the run and the final state in one transaction, if `worker` still holds this attempt.
    Returns the final state, or None when the submission was taken back meanwhile (the report is dropped)."""
    if report.verdict in State.final():
        state, message = report.verdict, report.message
    else:
        state, message = (
            State.ERROR,
            f"The judge gave an unknown verdict {report.verdict!r}. {report.message}",
        )
    public = [c for c in report.cases if c.kind in ("test", "benchmark")]
    secret = [c for c in report.cases if c.kind == "secret"]
    now = timezone.now()
    with transaction.atomic():
        updated = Submission.objects.filter(
            pk=submission_id, state=State.RUNNING, worker=worker, attempts=attempt
        ).update(state=state, message=message, finished_at=now, heartbeat_at=now)
        if not updated:
            logger.warning("submission %s was taken back from %s before it finished", submission_id, worker)
            return None
        run = Run.objects.create(
            submission_id=submission_id,
            verdict=state,
            message=message,
            score_s=report.score_s,
            public_passed=bool(public) and all(c.status == "passed" for c in public),
            secret_passed=bool(secret) and all(c.status == "passed" for c in secret),
            flagged=state == State.FLAGGED,
            flags=report.flags,
            report=report.to_dict(),
            worker=worker,
            attempt=attempt,
            started_at=started_at,
            finished_at=now,
        )
        RunCase.objects.bulk_create(
            RunCase(
                run=run,
                position=i,
                case_id=c.id,
                kind=c.kind,
                status=c.status,
                message=c.message,
                mean_s=c.stats.mean if c.stats else None,
                stderr_s=c.stats.stderr if c.stats else None,
                stats=dataclasses.asdict(c.stats) if c.stats else None,
                floor_s=c.floor_s,
            )
            for i, c in enumerate(report.cases)
        )
    return state


def _take_back(submission: Submission, *, reason: str, now: datetime) -> str:
    """Give a running submission another attempt, or end it as `error` once it has had them all.
    Compare-and-set on (state, worker, attempts): whoever comes second changes nothing."""
    held = Submission.objects.filter(
        pk=submission.pk, state=State.RUNNING, worker=submission.worker, attempts=submission.attempts
    )
    limit = settings.SUBMISSION_MAX_ATTEMPTS
    if submission.attempts >= limit:
        ended = held.update(
            state=State.ERROR,
            finished_at=now,
            message=f"Not judged: {reason}, on each of {limit} attempts. If your code can crash or exhaust "
            "the machine, that would do it; otherwise it is the platform's fault, so please submit again.",
        )
        return State.ERROR if ended else "unchanged"
    with transaction.atomic():
        requeued = held.update(
            state=State.QUEUED,
            enqueued_at=now,
            heartbeat_at=None,
            message=f"Queued again: {reason} during attempt {submission.attempts} of {limit}.",
        )
        if requeued:
            transaction.on_commit(
                partial(submission_enqueue, submission_id=submission.pk, device_kind=submission.device_kind)
            )
    return State.QUEUED if requeued else "unchanged"


def submission_take_back(*, submission_id: int, worker: str, reason: str) -> str:
    """Give back a submission that `worker` could not judge for a reason of the platform's."""
    submission = Submission.objects.filter(pk=submission_id, state=State.RUNNING, worker=worker).first()
    if submission is None:
        return "unchanged"
    return _take_back(submission, reason=reason, now=timezone.now())


@dataclass(frozen=True)
class SweepResult:
    requeued: int  # running with a stopped heartbeat, given another attempt
    ended: int  # running with a stopped heartbeat and no attempts left: ended as error
    resent: int  # queued for longer than REQUEUE_AFTER_S: its id sent again


def submission_sweep(
    *, heartbeat_timeout_s: float | None = None, requeue_after_s: float | None = None
) -> SweepResult:
    """Take back submissions whose worker stopped beating, and resend queued ids the broker may have lost."""
    now = timezone.now()
    timeout = settings.HEARTBEAT_TIMEOUT_S if heartbeat_timeout_s is None else heartbeat_timeout_s
    stale = Submission.objects.filter(state=State.RUNNING).filter(
        Q(heartbeat_at__lt=now - timedelta(seconds=timeout)) | Q(heartbeat_at__isnull=True)
    )
    outcomes = [
        _take_back(s, reason=f"its worker {s.worker} stopped responding", now=now)
        for s in stale.only("pk", "worker", "attempts", "device_kind")
    ]
    after = settings.REQUEUE_AFTER_S if requeue_after_s is None else requeue_after_s
    resent = 0
    waiting = Submission.objects.filter(state=State.QUEUED, enqueued_at__lt=now - timedelta(seconds=after))
    for pk, device_kind, enqueued_at in waiting.values_list("pk", "device_kind", "enqueued_at"):
        # Compare-and-set on enqueued_at: of two sweepers, one resends.
        if Submission.objects.filter(pk=pk, state=State.QUEUED, enqueued_at=enqueued_at).update(
            enqueued_at=now
        ):
            submission_enqueue(submission_id=pk, device_kind=device_kind)
            resent += 1
    return SweepResult(outcomes.count(State.QUEUED), outcomes.count(State.ERROR), resent)

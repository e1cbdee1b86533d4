"""Judging one submission on a worker: claim it, hand the runner a JobSpec, keep a heartbeat while the
judge runs, write each case it finishes onto the row (progress.py), and finish it (or give it back) with
what the runner reported. Each change of state is a compare-and-set of leaderboard.submissions.services;
this module only runs the job between them.
"""

from __future__ import annotations

import functools
import inspect
import logging
import pkgutil
import secrets
import threading
import time
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Q
from django.utils import timezone

from leaderboard.submissions import reconnect
from leaderboard.submissions.exploration import exploration_share_claimed, ranked_kinds_of, ranked_waiting
from leaderboard.submissions.models import Mode, State, Submission, Worker
from leaderboard.submissions.progress import ProgressWriter
from leaderboard.submissions.services import (
    submission_claim,
    submission_enqueue,
    submission_finish,
    submission_heartbeat,
    submission_take_back,
)
from leaderboard.submissions.tallies import HEARTBEAT_FAILURES, tally
from runner.spec import JobSpec, RunReport, Verdict
from runner.vocabulary import DEVICE_KINDS, EXPLORE, judged_as

logger = logging.getLogger(__name__)

PASS_ON_PAUSE_S = 1.0  # before a worker sends a second judging on to another (another_worker_judges)


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
        failed = 0  # beats that could not reach the database, counted once it answers again
        try:
            while not self._stop.wait(self.interval_s):
                # This thread's connection outlives any restart of the database: check it every beat.
                reconnect.refresh()
                try:
                    mine = submission_heartbeat(submission_id=self.submission_id, worker=self.worker)
                except DatabaseError as exc:  # a restart or a blip must not stop the beating
                    reconnect.drop()
                    failed += 1
                    logger.warning("heartbeat of submission %s failed: %s", self.submission_id, exc)
                    continue
                if failed:
                    tally(HEARTBEAT_FAILURES, failed)
                    failed = 0
                if not mine:
                    if not self._stop.is_set():  # not merely finished between two beats
                        self._let_go()
                    return
        finally:
            connection.close()

    def _let_go(self) -> None:
        """The row is no longer this worker's: another worker has it, or an operator ended it. Stop this
        judge rather than let it run beside the next one. (A row this thread cannot see at all was never
        taken back by anyone; it is being written in a transaction not yet committed, as in tests.)"""
        try:
            visible = Submission.objects.filter(pk=self.submission_id).exists()
        except DatabaseError:
            visible = False
        if not visible:
            logger.warning(
                "submission %s is not visible to the heartbeat; it stops beating", self.submission_id
            )
            return
        from runner.wire import leash

        let_go = leash.cut_all()
        logger.warning(
            "submission %s was taken back from %s; its judge is stopped (%d let go)",
            self.submission_id,
            self.worker,
            let_go,
        )


@functools.cache
def _judge_function(path: str):
    # Resolved once per process, not per submission.
    return pkgutil.resolve_name(path)


def _execute(spec: JobSpec, on_progress=None) -> RunReport:
    execute = _judge_function(settings.RUNNER_EXECUTE)
    # A stand-in judge (RUNNER_EXECUTE) may not report progress; the real runner does.
    if on_progress is not None and "on_progress" in inspect.signature(execute).parameters:
        return execute(spec, on_progress=on_progress)
    return execute(spec)


def submission_judge(*, submission_id: int, worker: str, delivered: bool = True) -> str:
    """Claim, judge and finish one submission; what a worker does with each message. Returns what became of
    it: its final state, "queued" (given back for another attempt), or "not claimed" (nothing to do).
    `delivered=False`: taken from the database ahead of its message (a ranked one before a candidate)."""
    submission = submission_claim(submission_id=submission_id, worker=worker, delivered=delivered)
    if submission is None:
        return "not claimed"
    shared = exploration_share_claimed(submission=submission, worker=worker)
    if shared is not None:  # identical code finished judging while this one waited: judged once
        return shared
    version = submission.problem_version
    problem_name = version.problem.name
    mode = submission.mode
    spec = JobSpec(
        problem=problem_name,
        source=submission.source.text,
        mode=judged_as(mode),  # an exploration candidate is judged as a benchmark run
        device=DEVICE_KINDS[submission.device_kind].runner_device,
        sandbox=settings.RUNNER_SANDBOX,
        # A fresh secret seed per ranked run; it goes to the judge only and is never stored.
        secret_seed=secrets.randbits(63) if mode == Mode.LEADERBOARD else None,
        ranked=mode == Mode.LEADERBOARD,
        threads=settings.RUNNER_THREADS,
        device_kind=submission.device_kind,
        case_budget_s=_case_budget_s(mode),
    )
    # The heartbeat goes on while the report is written, so that a database that is down when judging ends
    # does not make the sweeper take back a run whose report is waiting to be written.
    with _Heartbeat(submission_id=submission_id, worker=worker, interval_s=settings.HEARTBEAT_INTERVAL_S):
        try:
            # The writer's last write (the last case heard) lands before the finish below.
            with ProgressWriter(
                submission_id=submission_id, worker=worker, attempt=submission.attempts
            ) as on_progress:
                report = _judge_version_checked(
                    spec, expected_version=version.content_hash, on_progress=on_progress
                )
        except SoftTimeLimitExceeded:
            report = RunReport(
                verdict=Verdict.TIMEOUT,
                message=f"Judging took longer than the platform's limit of {settings.JUDGE_SOFT_TIME_LIMIT_S} "
                "s and was stopped.",
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
            logger.error(
                "the judge failed on %s for submission %s: %s", worker, submission_id, report.message
            )
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


def _case_budget_s(mode: str) -> float | None:
    """Timed seconds per benchmark case: the runner's default for the mode (or RUNNER_CASE_BUDGET_S), and
    for an exploration candidate EXPLORE_CASE_BUDGET_S, or the runner's setting where that is shorter."""
    budget = settings.RUNNER_CASE_BUDGET_S
    if mode == EXPLORE:
        return min(b for b in (budget, settings.EXPLORE_CASE_BUDGET_S) if b is not None)
    return budget


def submission_judge_delivered(*, submission_id: int, worker: str) -> str:
    """What a worker does with a message: judge the submission, but before an exploration candidate, the
    oldest queued ranked submission of a device kind whose ranked queue this worker serves, so that a
    ranked submission never waits behind candidates, whatever order the broker delivers them in (its own
    message then finds it judged). One at most per candidate: the two fit within the task's time limit."""
    if Submission.objects.filter(pk=submission_id, mode=EXPLORE, state=State.QUEUED).exists():
        queues = Worker.objects.filter(name=worker).values_list("device_kinds", flat=True).first() or ""
        kinds = ranked_kinds_of(queues.split(","))
        for ranked_id in ranked_waiting(device_kinds=kinds) if kinds else []:
            if another_worker_judges(submission_id=ranked_id, worker=worker):
                continue  # its own message finds the other worker, or comes back here past the wait
            if submission_judge(submission_id=ranked_id, worker=worker, delivered=False) != "not claimed":
                break  # another worker may have taken the oldest meanwhile: then the next
    if another_worker_judges(submission_id=submission_id, worker=worker):
        queued = Submission.objects.filter(pk=submission_id).values_list("device_kind", "mode").first()
        if queued is not None:
            logger.info("second judging %s passed on from %s to another worker", submission_id, worker)
            # A pause, so that a message the other worker fails to take (a stuck consumer whose beat goes on)
            # comes back here a few dozen times within the wait, not thousands.
            time.sleep(PASS_ON_PAUSE_S)
            submission_enqueue(submission_id=submission_id, device_kind=queued[0], mode=queued[1])
        return "passed on"
    return submission_judge(submission_id=submission_id, worker=worker)


def another_worker_judges(*, submission_id: int, worker: str) -> bool:
    """Whether `worker` leaves a queued second judging to another worker (issue 30: leaders are judged again
    on another worker where there is one): it judged an earlier run of the same leader, and another worker
    that serves the device kind beats, has not stopped and judges nothing now. Only for
    LEADERS_ANOTHER_WORKER_WAIT_S after the second judging was queued: a busy or vanished fleet never
    leaves it waiting longer than that."""
    wait_s = settings.LEADERS_ANOTHER_WORKER_WAIT_S
    if not wait_s:
        return False
    now = timezone.now()
    second = (
        Submission.objects.filter(
            pk=submission_id,
            state=State.QUEUED,
            confirms__isnull=False,
            created_at__gte=now - timedelta(seconds=wait_s),
        )
        .values_list("confirms_id", "device_kind")
        .first()
    )
    if second is None:
        return False
    first_id, kind = second
    judged_by = set(
        Submission.objects.filter(Q(pk=first_id) | Q(confirms_id=first_id))
        .exclude(worker="")
        .values_list("worker", flat=True)
    )
    if worker not in judged_by:
        return False
    busy = set(Submission.objects.filter(state=State.RUNNING).values_list("worker", flat=True))
    fresh_after = now - timedelta(seconds=settings.WORKER_STALE_AFTER_S)
    others = Worker.objects.filter(stopped_at__isnull=True, beat_at__gte=fresh_after).exclude(
        name__in=judged_by | busy
    )
    return any(kind in kinds.split(",") for kinds in others.values_list("device_kinds", flat=True))


def _judge_version_checked(spec: JobSpec, *, expected_version: str, on_progress=None) -> RunReport:
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
    return _execute(spec, on_progress)

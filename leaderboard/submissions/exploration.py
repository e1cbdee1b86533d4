"""The exploration tier (docs/platform.md, "The exploration tier"): an agent's candidates (mode explore),
judged as benchmark runs on a queue and a quota of their own per device kind, never ranked.

Two decisions live here. Identical code is judged once: a candidate whose source, problem version, device
kind and language were judged already ends with a copy of that run (`shared_judging`, at its creation or
when a worker claims it). And a ranked submission never waits behind candidates: a worker that serves both
of a device kind's queues judges the oldest queued ranked submission before each candidate it takes
(`ranked_waiting`, leaderboard/submissions/judging.py).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from leaderboard.submissions.models import Attempt, Mode, Outcome, Run, RunCase, Source, State, Submission
from runner.vocabulary import EXPLORE, queue_device_kind

# The code's own verdicts: an error or a timeout may be the machine's as much as the code's, so such code
# is judged afresh.
SHAREABLE_VERDICTS = (State.PASSED, State.FAILED, State.REJECTED)


def shared_judging(
    *, user_id: int, version, device_kind: str, language: str, sha256: str
) -> Submission | None:
    """The latest finished judging of identical code that an exploration candidate may share: an
    exploration or benchmark run (both timed, every output checked) of the same author, source sha256,
    problem version, device kind and language, judged by a worker itself (not a copy), with a verdict that
    is the code's own. None when there is none.

    The author's own judgings only: another user's would tell this one that (and when, on which worker)
    someone judged this exact code in private, and would let anyone who submits a text many authors send
    (a problem's starting kernel) choose, by judging it again in mode benchmark at a moment of their
    choosing (the latest judging is the one shared), the reading every other author's copies get."""
    return (
        Submission.objects.filter(
            user_id=user_id,
            problem_version=version,
            device_kind=device_kind,
            language=language,
            source__sha256=sha256,
            mode__in=(EXPLORE, Mode.BENCHMARK),
            state__in=SHAREABLE_VERDICTS,
            shared_from__isnull=True,
            run__isnull=False,
        )
        .select_related("run")
        .order_by("-finished_at", "-id")
        .first()
    )


def _shared_message(shared: Submission) -> str:
    return (
        f"Identical code was judged as #{shared.pk}; this candidate shares that run rather than being judged "
        f"again. {shared.run.message}"
    ).strip()[:2000]


def _copy_run(shared: Submission, *, to_submission_id: int, now: datetime) -> Run:
    """A copy of `shared`'s run, and its cases, as the run of another submission: every column as judged
    (so a column added later is copied too), with the note that it is shared."""
    original = shared.run
    kept = {
        f.attname: getattr(original, f.attname)
        for f in Run._meta.concrete_fields
        if f.name not in ("id", "submission", "message", "finished_at")
    }
    run = Run.objects.create(
        submission_id=to_submission_id, message=_shared_message(shared), finished_at=now, **kept
    )
    fields = [f.attname for f in RunCase._meta.concrete_fields if f.name not in ("id", "run")]
    RunCase.objects.bulk_create(
        RunCase(run=run, **{f: getattr(c, f) for f in fields}) for c in original.cases.all()
    )
    return run


def exploration_create_shared(
    *, user, source: Source, language: str, device_kind: str, now: datetime, shared: Submission
) -> Submission:
    """An exploration candidate final at once, sharing the run of identical code judged before (inside
    submission_create's transaction)."""
    submission = Submission.objects.create(
        user=user,
        problem_version_id=shared.problem_version_id,
        source=source,
        language=language,
        device_kind=device_kind,
        mode=EXPLORE,
        state=shared.state,
        created_at=now,
        finished_at=now,
        shared_from=shared,
        message=_shared_message(shared),
    )
    _copy_run(shared, to_submission_id=submission.pk, now=now)
    return submission


def exploration_share_claimed(*, submission: Submission, worker: str) -> str | None:
    """A claimed exploration candidate whose identical code finished judging while it waited ends with a
    copy of that run instead of being judged (a compare-and-set on the claim, as a report is written).
    Returns its final state, or None when there is nothing to share (the worker then judges it), or when
    its author asked for a fresh judging (`reuse` false: a confirming reading must be a reading)."""
    if submission.mode != EXPLORE or not submission.reuse:
        return None
    shared = shared_judging(
        user_id=submission.user_id,
        version=submission.problem_version,
        device_kind=submission.device_kind,
        language=submission.language,
        sha256=submission.source.sha256,
    )
    if shared is None:
        return None
    now = timezone.now()
    with transaction.atomic():
        if not Submission.objects.filter(
            pk=submission.pk, state=State.RUNNING, worker=worker, attempts=submission.attempts
        ).update(
            state=shared.state,
            finished_at=now,
            heartbeat_at=now,
            progress=None,
            shared_from=shared,
            message=_shared_message(shared),
        ):
            return None
        _copy_run(shared, to_submission_id=submission.pk, now=now)
        Attempt.objects.filter(submission_id=submission.pk, number=submission.attempts).update(
            outcome=Outcome.FINISHED, ended_at=now, reason=f"Shared the run of #{shared.pk}, identical code."
        )
    return str(shared.state)


def ranked_waiting(*, device_kinds: list[str]) -> list[int]:
    """The queued ranked-tier submissions (every mode but explore) of these device kinds, oldest first:
    what a worker serving their ranked queues judges before its next exploration candidate."""
    return list(
        Submission.objects.filter(state=State.QUEUED, device_kind__in=device_kinds)
        .exclude(mode=EXPLORE)
        .order_by("created_at", "id")
        .values_list("pk", flat=True)[:3]
    )


def ranked_kinds_of(queues: list[str]) -> list[str]:
    """The device kinds whose ranked queue is among `queues` (a worker's)."""
    return [q for q in queues if queue_device_kind(q) == q]

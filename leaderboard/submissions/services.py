"""Writes of submissions: create, enqueue, claim, heartbeat, finish, take back, sweep (judging.py runs a
job between claim and finish; review.py holds the decisions on finished ones).

Every change of state is a compare-and-set UPDATE on the row (`filter(state=..., worker=...).update(...)`),
so that a duplicate delivery, a late worker or a second sweeper finds nothing to change: no submission is
judged twice, none stays `running` forever.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction
from django.db.models import F, Q
from django.utils import timezone

from leaderboard.errors import Conflict, LimitReached, NotFound, NoWorker, Refusal, SourceTooLarge
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions import broker, exploration, reconnect
from leaderboard.submissions.models import (
    VERDICT_STATES,
    Attempt,
    DeviceKind,
    Language,
    Mode,
    Outcome,
    Run,
    RunCase,
    Source,
    State,
    Submission,
    Worker,
)
from leaderboard.submissions.selectors import device_kind_last_seen, served_device_kinds, tier_modes
from leaderboard.submissions.tallies import (
    DUPLICATE_DELIVERIES,
    LATE_RESULTS_DROPPED,
    PUBLISH_FAILURES,
    REPORTS_CUT,
    RESENDS,
    tally,
)
from runner import textsafe
from runner.spec import CaseResult, RunReport
from runner.vocabulary import EXPLORE, JUDGING_QUEUES, judging_queue, queue_device_kind

logger = logging.getLogger(__name__)

JUDGE_TASK = "leaderboard.judge"


def _choice(value: str, choices: type, what: str) -> str:
    if value not in choices.values:
        allowed = ", ".join(choices.values)
        raise Refusal(f"{what} {value!r} is not one we know; choose one of: {allowed}.")
    return value


def _check_limits(*, user, now: datetime, served: set[str], explore: bool = False) -> None:
    """The user's limits in the submission's tier: the exploration tier (mode explore) has its own, so that
    neither tier's submissions use up the other's."""
    in_flight_limit = settings.EXPLORE_MAX_IN_FLIGHT if explore else settings.SUBMISSION_MAX_IN_FLIGHT
    hourly_limit = settings.EXPLORE_MAX_PER_HOUR if explore else settings.SUBMISSION_MAX_PER_HOUR
    mine = Submission.objects.filter(user=user)
    mine = mine.filter(mode=EXPLORE) if explore else mine.exclude(mode=EXPLORE)
    # The platform's second judgings of the author's leaders are not the author's requests (the hourly
    # count leaves them out), but they are the author's work on the queue: in flight they hold a place, or
    # an author whose kernels lead and then hang on fresh inputs (a timeout is judged a third time) would
    # have any number of 900 s ranked runs queued at once, past the bound that keeps one author from
    # taking what every author shares.
    tier = mine.filter(confirms__isnull=True)
    what = "exploration candidates" if explore else "submissions"
    if in_flight_limit:
        # What cannot run (queued for a queue no worker serves) does not hold a place; what is cancelled is
        # final and out of it already.
        kinds = [queue_device_kind(q) for q in served if (q != queue_device_kind(q)) == explore]
        in_flight = mine.filter(Q(state=State.RUNNING) | Q(state=State.QUEUED, device_kind__in=kinds))
        count = in_flight.count()
        if count >= in_flight_limit:
            raise LimitReached(
                f"You have {count} {what} queued or running, the most allowed at once; "
                "wait for one of them to finish, or cancel a queued one (on its page, or "
                "`kernelboard cancel ID`), then submit again.",
                retry_after_s=30,
            )
    if hourly_limit:
        window_start = now - timedelta(hours=1)
        recent = tier.filter(created_at__gt=window_start)
        count = recent.count()
        if count >= hourly_limit:
            oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
            wait_s = max(1, int((oldest - window_start).total_seconds()) + 1)
            raise LimitReached(
                f"You have made {count} {what} in the last hour, the most allowed; "
                f"you can submit again in {_duration_words(wait_s)}.",
                retry_after_s=wait_s,
            )


def _duration_words(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{round(seconds / 60)} minutes"


def submission_create(
    *,
    user,
    problem: str,
    device_kind: str,
    mode: str,
    language: str,
    source: str,
    judged_here: bool = False,
    reuse: bool = True,
) -> Submission:
    """Record a submission as queued, and send its id to its device kind's queue once the row is committed.

    Raises a Refusal (with the HTTP status to answer) for an unknown problem or choice, an empty or
    oversized source, a device kind that no worker serves (unless `judged_here`: the caller judges it in
    its own process, as an agent run does), or a user over their limits.

    An exploration candidate (mode explore) goes to its device kind's exploration queue, within the
    exploration quota; where identical code was judged already and `reuse`, it is final at once with a copy
    of that run, and no worker judges it again (leaderboard/submissions/exploration.py).
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
    served = served_device_kinds(now=now)
    explore = mode == EXPLORE
    queue = judging_queue(device_kind, mode)
    sha256 = hashlib.sha256(source.encode()).hexdigest()
    shared = None
    if explore and reuse:
        shared = exploration.shared_judging(
            user_id=user.pk,
            version=found.current_version,
            device_kind=device_kind,
            language=language,
            sha256=sha256,
        )
    if queue not in served and settings.SUBMISSION_REFUSE_UNSERVED and not judged_here and shared is None:
        others = ", ".join(sorted(q for q in served if (q != queue_device_kind(q)) == explore)) or "none"
        what = "exploration candidates on the" if explore else "the"
        raise NoWorker(
            f"No worker judges {what} {device_kind} device kind now, so a submission there would wait for "
            f"nobody; it was not queued. Device kinds served now: {others}.",
            retry_after_s=60,
        )
    with transaction.atomic():
        # One user's submissions are created one at a time, so that two at once cannot both pass the limits.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        _check_limits(user=user, now=now, served=served, explore=explore)
        stored = Source.objects.create(text=source, sha256=sha256, size_bytes=size)
        if shared is not None:
            return exploration.exploration_create_shared(
                user=user, source=stored, language=language, device_kind=device_kind, now=now, shared=shared
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
            reuse=reuse,
        )
        transaction.on_commit(
            partial(submission_enqueue, submission_id=submission.pk, device_kind=device_kind, mode=mode)
        )
    return submission


def submission_enqueue(*, submission_id: int, device_kind: str, mode: str = "") -> bool:
    """Send a submission's id to its queue: its device kind's, or that kind's exploration queue for mode
    explore. Never raises: if the broker cannot be reached the row stays queued with no `enqueued_at`, and
    the sweeper's next round sends it again."""
    from leaderboard.celery import app

    queue = judging_queue(device_kind, mode)
    try:
        app.send_task(JUDGE_TASK, args=[submission_id], queue=queue, retry=True)
        return True
    except Exception:  # the broker is down: the database row is the truth, the sweeper resends
        logger.warning(
            "could not send submission %s to the %s queue; the sweeper will resend it",
            submission_id,
            queue,
            exc_info=True,
        )
    try:  # "never sent": what the sweeper looks for first
        Submission.objects.filter(pk=submission_id, state=State.QUEUED).update(enqueued_at=None)
        tally(PUBLISH_FAILURES)
    except DatabaseError:  # then the periodic resend finds it
        logger.warning("could not mark submission %s as unsent", submission_id, exc_info=True)
    return False


def submission_claim(*, submission_id: int, worker: str, delivered: bool = True) -> Submission | None:
    """Take a queued submission for `worker` (queued -> running, attempts + 1, heartbeat) and open its
    attempt. Returns None when there is nothing to take: a duplicate delivery, or a submission already
    running or final. Retried while the database does not answer (a compare-and-set). `delivered=False`:
    taken ahead of its message (a ranked one before a candidate), so losing it is no duplicate delivery."""
    now = timezone.now()

    def claim() -> int:
        with transaction.atomic():
            claimed = Submission.objects.filter(pk=submission_id, state=State.QUEUED).update(
                state=State.RUNNING,
                attempts=F("attempts") + 1,
                worker=worker,
                heartbeat_at=now,
                started_at=now,
                progress=None,  # this attempt's cases are counted afresh
            )
            if claimed:
                number = Submission.objects.filter(pk=submission_id).values_list("attempts", flat=True).get()
                Attempt.objects.create(
                    submission_id=submission_id, number=number, worker=worker, started_at=now
                )
            return claimed

    claimed = reconnect.retrying(
        claim, what=f"claiming submission {submission_id}", give_up_after_s=settings.DATABASE_RETRY_S
    )
    # A try whose answer was lost with the connection may have claimed it: then our own `now` is on the row.
    if (
        not claimed
        and not Submission.objects.filter(
            pk=submission_id, state=State.RUNNING, worker=worker, started_at=now
        ).exists()
    ):
        # A cancelled one's id still in the broker is expected, not a duplicate delivery.
        if delivered and not Submission.objects.filter(pk=submission_id, state=State.CANCELLED).exists():
            tally(DUPLICATE_DELIVERIES)
        return None
    return Submission.objects.select_related("source", "problem_version__problem").get(pk=submission_id)


def submission_heartbeat(*, submission_id: int, worker: str) -> bool:
    """Tell the sweeper that `worker` is still judging the submission. False if it is no longer its own."""
    return bool(
        Submission.objects.filter(pk=submission_id, state=State.RUNNING, worker=worker).update(
            heartbeat_at=timezone.now()
        )
    )


def submission_progress(*, submission_id: int, worker: str, attempt: int, progress: dict) -> bool:
    """Record the judge's last finished case on the row, if `worker` still holds this attempt (a
    compare-and-set, like every write of a running row: a worker that lost the row writes nothing). False
    when it no longer holds it. Advisory: the live view reads it, the run's report stays the truth."""
    return bool(
        Submission.objects.filter(
            pk=submission_id, state=State.RUNNING, worker=worker, attempts=attempt
        ).update(progress=progress)
    )


def submission_finish(
    *, submission_id: int, worker: str, attempt: int, report: RunReport, started_at: datetime
) -> str | None:
    """Write the run and the final state in one transaction, if `worker` still holds this attempt.
    Returns the final state, or None when the submission was taken back meanwhile (the report is dropped,
    and counted). While the database does not answer, the write is tried again for up to DATABASE_RETRY_S:
    the report of a finished run is not lost to a restart of the database.

    A report's content never fails the write: its strings are made safe first (runner/textsafe.py), and a
    report the database still refuses is written without its texts (the verdict, the score and each case's
    status and timing kept, with a note), logged and counted: never given back for another run."""
    report = textsafe.clean(report)
    if report.verdict == State.PASSED and not report.passed:  # runner.vocabulary.passed: one decision
        state, message = (
            State.ERROR,
            "The judge's report says passed, but a flag or a case says otherwise; it was not ranked. "
            f"{report.message}",
        )
    elif report.verdict in VERDICT_STATES:
        state, message = report.verdict, report.message
    else:
        state, message = (
            State.ERROR,
            f"The judge gave an unknown verdict {report.verdict!r}. {report.message}",
        )

    def attempt_write(report: RunReport, message: str) -> str | None:
        return reconnect.retrying(
            partial(_write_run, submission_id, worker, attempt, started_at, report, state, message),
            what=f"writing the report of submission {submission_id}",
            give_up_after_s=settings.DATABASE_RETRY_S,
        )

    try:
        final = attempt_write(report, message)
    except reconnect.DISCONNECTED:
        raise  # the database is gone (retried for DATABASE_RETRY_S): the platform's own evidence
    except Exception as exc:  # the content (a DataError, a NUL, a lone surrogate, ...): never a retry
        logger.error(
            "the report of submission %s could not be stored whole (%s: %s); it is stored without its texts",
            submission_id,
            type(exc).__name__,
            exc,
        )
        tally(REPORTS_CUT)
        final = attempt_write(_bare(report, state), f"{UNSTORED_NOTE} {_ascii(message, 300)}")
    if final is not None:
        return final
    # A try whose answer was lost with the connection may have written it.
    written = Run.objects.filter(submission_id=submission_id, worker=worker, attempt=attempt)
    if verdict := written.values_list("verdict", flat=True).first():
        return verdict
    logger.warning(
        "submission %s was taken back from %s before it finished; its late report is dropped",
        submission_id,
        worker,
    )
    Attempt.objects.filter(submission_id=submission_id, number=attempt).update(late_result_dropped=True)
    tally(LATE_RESULTS_DROPPED)
    return None


UNSTORED_NOTE = (
    "Part of this run's report could not be stored, so its texts (messages, output) are left out; "
    "the verdict, the score and each case's status are as judged."
)


def _ascii(text: str, cap: int) -> str:
    """Text any database stores: ASCII, every other character written as its escape."""
    return textsafe.safe_text(text, cap).encode("ascii", "backslashreplace").decode("ascii")[:cap]


def _bare(report: RunReport, state: str) -> RunReport:
    """What of a report any database stores: the verdict, the score, each case's id, kind, status and
    timing; no message, output or evidence."""
    return RunReport(
        verdict=state,
        message=UNSTORED_NOTE,
        problem=_ascii(report.problem, 100),
        mode=_ascii(report.mode, 32),
        device=_ascii(report.device, 32),
        score_s=report.score_s,
        score_low_s=report.score_low_s,
        score_high_s=report.score_high_s,
        cases=[
            CaseResult(
                id=_ascii(c.id, 300),
                kind=_ascii(c.kind, 32),
                status=_ascii(c.status, 32),
                stats=c.stats,
                floor_s=c.floor_s,
            )
            for c in report.cases
        ],
        flags=[
            {"kind": _ascii(str(f.get("kind")), 32), "message": "", "evidence": None} for f in report.flags
        ],
        handshake_s=report.handshake_s,
    )


def _write_run(
    submission_id: int,
    worker: str,
    attempt: int,
    started_at: datetime,
    report: RunReport,
    state: str,
    message: str,
) -> str | None:
    """The run, its cases and the final state, in one transaction; None when `worker` no longer holds this
    attempt. A compare-and-set: safe to repeat."""
    public = [c for c in report.cases if c.kind in ("test", "benchmark")]
    secret = [c for c in report.cases if c.kind == "secret"]
    now = timezone.now()
    with transaction.atomic():
        updated = Submission.objects.filter(
            pk=submission_id, state=State.RUNNING, worker=worker, attempts=attempt
        ).update(state=state, message=message, finished_at=now, heartbeat_at=now)
        if not updated:
            return None
        run = Run.objects.create(
            submission_id=submission_id,
            verdict=state,
            message=message,
            score_s=report.score_s,
            score_low_s=report.score_low_s,
            score_high_s=report.score_high_s,
            score_note=textsafe.safe_text(report.score_note, 300),
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
                median_s=c.stats.median if c.stats else None,
                median_low_s=c.stats.median_low if c.stats else None,
                median_high_s=c.stats.median_high if c.stats else None,
                stats=dataclasses.asdict(c.stats) if c.stats else None,
                floor_s=c.floor_s,
            )
            for i, c in enumerate(report.cases)
        )
        Attempt.objects.filter(submission_id=submission_id, number=attempt).update(
            outcome=Outcome.FINISHED, ended_at=now, reason=""
        )
        try:
            with transaction.atomic():  # a savepoint: whatever goes wrong here, the run itself is written
                _judge_again_or_settle(Submission.objects.get(pk=submission_id), run)
        except Exception:  # the run is written whatever this decision met (a row gone, a rejudge meanwhile)
            logger.exception("submission %s: deciding whether to judge it again failed", submission_id)
            try:
                with transaction.atomic():
                    _judge_again_undecided(submission_id, run)
            except Exception:
                logger.exception("submission %s: judging it again, undecided, failed too", submission_id)
    return state


def _judge_again_undecided(submission_id: int, run: Run) -> None:
    """A first leaderboard run whose decision raised fails closed: had it been left as it is, a leader
    would rank on its one judging. It is judged again as a leader is (whether or not it would have led:
    one judging more, rarely), ranking once that is settled, on the slower of the two."""
    submission = Submission.objects.select_related("source").get(pk=submission_id)
    if (
        not settings.LEADERS_JUDGED_AGAIN
        or submission.confirms_id is not None
        or submission.mode != Mode.LEADERBOARD
        or submission.confirmation
        or not _qualifies(run)
    ):
        return
    submission.confirmation = "pending"
    submission.save(update_fields=["confirmation"])
    _judge_again(submission, "before it ranks: whether it would lead could not be decided")


def _qualifies(run: Run) -> bool:
    """The run's own part of ranking_eligible: what a second judging must show too."""
    return (
        run.verdict == State.PASSED
        and run.public_passed
        and run.secret_passed
        and not run.flagged
        and (run.score_s or 0) > 0
    )


# Submission.confirmation once a first judging is held back: "pending" until its second judging settles
# it as "confirmed" or "refuted"; "unconfirmed" when the second judging could not be run (cancelled, or out
# of attempts, or ended by an operator): not ranked, as a refuted one, but it says why.


# A second judging that the judge itself reports as the platform's fault (its report's `platform_fault`,
# which the submission cannot write) is made once more (so at most two per first run) before the first is
# refuted. Not an error or a timeout as such: a kernel can raise, sleep or kill itself on a draw it dislikes,
# and that must cost it the rank, not buy it another draw (attack review, 2026-12-07).
JUDGINGS_AGAIN_AT_MOST = 2


def _same_source(submission: Submission):
    """The author's other first judgings of the very same source text (its sha256) on the same problem
    version and device kind: copies of one file, which share one second judging."""
    return (
        Submission.objects.filter(
            user_id=submission.user_id,
            problem_version_id=submission.problem_version_id,
            device_kind=submission.device_kind,
            mode=Mode.LEADERBOARD,
            confirms__isnull=True,
            source__sha256=submission.source.sha256,
        )
        .exclude(pk=submission.pk)
        .order_by("created_at", "id")
    )


def _would_lead(submission: Submission, run: Run, eligible, top: int) -> bool:
    """Whether `run` would enter the top `top` of the board of `eligible` submissions and change its
    author's best there."""
    eligible = eligible.exclude(pk=submission.pk)
    if eligible.filter(user_id=submission.user_id, run__score_s__lte=run.score_s).exists():
        return False  # the author's own better entry stands: this one changes no ranking
    ahead = eligible.filter(run__score_s__lt=run.score_s).exclude(user_id=submission.user_id)
    return ahead.values("user_id").distinct().count() < top


def _boards(submission: Submission):
    """The boards a run of `submission` enters: its problem's rankings on its device kind, and the board
    of every contest over the problem that it was made in and that is not final yet (a contest's board
    is the rankings bounded to its window, so three faster users of all time must not keep its own
    leaders from being judged again)."""
    from leaderboard.submissions.selectors import ranking_eligible

    problem = submission.problem_version.problem
    yield ranking_eligible(problem=problem, device_kind=submission.device_kind)
    made = submission.created_at
    for starts_at, ends_at in problem.contests.filter(
        starts_at__lte=made, ends_at__gt=made, frozen_at__isnull=True
    ).values_list("starts_at", "ends_at"):
        yield ranking_eligible(
            problem=problem, device_kind=submission.device_kind, made_from=starts_at, made_before=ends_at
        )


def _rank_on_the_slower(first: Submission, run: Run, note: str) -> None:
    """`first` ranks on the slower of its own run and `run` (another judging of the same source): its
    run's score and interval become the slower one's; the note says so. Its report stays whole."""
    ranked = Run.objects.get(submission_id=first.pk)
    if (run.score_s or 0) > (ranked.score_s or 0):
        ranked.score_s, ranked.score_low_s, ranked.score_high_s = (
            run.score_s,
            run.score_low_s,
            run.score_high_s,
        )
    ranked.score_note = "; ".join(n for n in (ranked.score_note, note) if n)[:300]
    ranked.save(update_fields=["score_s", "score_low_s", "score_high_s", "score_note"])


def _lock_author(user_id: int) -> None:
    """Hold the author's row until the transaction ends: decisions on one author's copies, and the
    settling of the copies that wait, happen one at a time."""
    get_user_model().objects.select_for_update().filter(pk=user_id).first()


def _settle_copies(first: Submission) -> None:
    """The author's copies of `first`'s source held back for its second judging, settled as it was: a
    copy ranks no faster than `first` now does (each copy's draw can only make it slower), and not at
    all where `first` does not. Under the author's lock, as a copy's own decision to wait is: a copy
    deciding while `first` settles either sees it settled or is seen waiting here, never neither."""
    _lock_author(first.user_id)
    ranked = Run.objects.get(submission_id=first.pk)
    for copy in _same_source(first).filter(confirmation="pending", confirmations__isnull=True):
        copy.confirmation = first.confirmation
        if first.confirmation == "confirmed":
            copy.save(update_fields=["confirmation"])
            _rank_on_the_slower(
                copy, ranked, f"the same source as #{first.pk}: ranked no faster than its judgings"
            )
        else:
            copy.message = (
                f"The same source as #{first.pk}, which was judged again and is not ranked: "
                "neither is this copy."
            )
            copy.save(update_fields=["confirmation", "message"])


def _settle(first: Submission, second: Submission, run: Run) -> None:
    """A second judging's run settles its first (held back, `pending`): confirmed, ranking on the slower
    of the two secret runs, or refuted; then the author's copies of the same source held back for it."""
    if not _qualifies(run):
        first.confirmation = "refuted"
        first.message = (
            f"Judged again with fresh secret inputs (#{second.pk}), it ended {run.verdict}: "
            f"{run.message or 'see that run'}. It is not ranked."
        )[:2000]
        first.save(update_fields=["confirmation", "message"])
    else:
        first.confirmation = "confirmed"
        first.save(update_fields=["confirmation"])
        _rank_on_the_slower(
            first, run, f"ranked on the slower of its two secret runs (#{second.pk} judged it again)"
        )
    _settle_copies(first)


def _judge_again_or_settle(submission: Submission, run: Run) -> None:
    """Inside _write_run's transaction. A first leaderboard run that would enter the top
    LEADERS_JUDGED_AGAIN of a board it enters (the problem's, a running contest's) is held back and judged
    again (a submission of its own, queued at once), once per source: a copy of a source already judged
    again waits for that judging and ranks no faster than it. A second judging settles its first:
    confirmed, ranking on the slower of the two secret runs, or refuted."""
    if submission.confirms_id is not None:
        first = Submission.objects.select_for_update().get(pk=submission.confirms_id)
        if first.confirmation != "pending":
            return
        if (run.report or {}).get("platform_fault") and first.confirmations.count() < JUDGINGS_AGAIN_AT_MOST:
            _judge_again(first, f"#{submission.pk} ended {run.verdict} by a fault of the platform")
            return
        _settle(first, submission, run)
        return
    top = settings.LEADERS_JUDGED_AGAIN
    if not top or submission.mode != Mode.LEADERBOARD or not _qualifies(run):
        return
    problem = submission.problem_version.problem
    if submission.problem_version_id != problem.current_version_id:
        return
    if not any(_would_lead(submission, run, board, top) for board in _boards(submission)):
        return
    # One author's copies decide one at a time (their first runs may end together): the first to get here
    # is judged again, the others wait for it.
    _lock_author(submission.user_id)
    original = (
        _same_source(submission)
        .filter(confirmation__in=("pending", "confirmed", "refuted"), confirmations__isnull=False)
        .first()
    )
    submission.confirmation = "pending"
    if original is not None:
        submission.message = (
            f"The same source as #{original.pk}, which is judged again before it ranks: this copy ranks "
            "once that is settled, and no faster."
        )
        submission.save(update_fields=["confirmation", "message"])
        if original.confirmation != "pending":
            _settle_copies(original)
        return
    submission.save(update_fields=["confirmation"])
    _judge_again(submission, "before it ranks")


def _judge_again(submission: Submission, why: str) -> None:
    """Queue another judging of `submission`'s source, a submission of its own that confirms it."""
    source = submission.source.text
    now = timezone.now()
    again = Submission.objects.create(
        user_id=submission.user_id,
        problem_version_id=submission.problem_version_id,
        source=Source.objects.create(
            text=source, sha256=submission.source.sha256, size_bytes=submission.source.size_bytes
        ),
        language=submission.language,
        device_kind=submission.device_kind,
        mode=Mode.LEADERBOARD,
        state=State.QUEUED,
        created_at=now,
        enqueued_at=now,
        confirms=submission,
        message=f"Judging #{submission.pk} again with fresh secret inputs ({why}).",
    )
    transaction.on_commit(partial(submission_enqueue, submission_id=again.pk, device_kind=again.device_kind))


def submission_leader_reviewed(*, submission_id: int) -> None:
    """Inside review.py's transaction, once staff accepted a flagged run: it now qualifies, so it meets the
    leaders' gate as any passed run does (a leader is judged again before it ranks, whoever passed it),
    and an accepted second judging settles again the first that its flags had refuted."""
    submission = Submission.objects.select_related("problem_version__problem", "source").get(pk=submission_id)
    run = Run.objects.get(submission_id=submission_id)
    if submission.confirms_id is None:
        _judge_again_or_settle(submission, run)
        return
    first = Submission.objects.select_for_update().get(pk=submission.confirms_id)
    latest = first.confirmations.order_by("-created_at", "-id").first()
    if first.confirmation != "refuted" or latest is None or latest.pk != submission.pk:
        return
    _lock_author(first.user_id)  # before its copies' rows, in the order every other path takes them
    _same_source(first).filter(confirmation="refuted", confirmations__isnull=True).update(
        confirmation="pending"
    )
    first.confirmation = "pending"
    first.message = f"Its second judging (#{submission.pk}) was flagged, then accepted after review."
    first.save(update_fields=["confirmation", "message"])
    _settle(first, submission, run)


def _second_judging_not_run(second_ids, why: str) -> None:
    """Second judgings among `second_ids` that ended without a run (cancelled, or out of attempts): each
    one's first, still pending, is settled as `unconfirmed` (not ranked, saying why), so that nothing waits
    for it (a contest's final board among them); staff's rejudge of the second judging makes it wait anew."""
    for pk, first_id in Submission.objects.filter(pk__in=second_ids, confirms__isnull=False).values_list(
        "pk", "confirms_id"
    ):
        first = Submission.objects.select_for_update().filter(pk=first_id, confirmation="pending").first()
        if first is None:
            continue
        first.confirmation = "unconfirmed"
        first.message = (
            f"Its second judging (#{pk}) could not be run ({why}), so it is not ranked: submit it again."
        )[:2000]
        first.save(update_fields=["confirmation", "message"])
        _settle_copies(first)


def _take_back(
    submission: Submission, *, reason: str, now: datetime, outcome: str = Outcome.TAKEN_BACK
) -> str:
    """Give a running submission another attempt, or end it as `error` once it has had them all.
    Compare-and-set on (state, worker, attempts): whoever comes second changes nothing."""
    held = Submission.objects.filter(
        pk=submission.pk, state=State.RUNNING, worker=submission.worker, attempts=submission.attempts
    )
    limit = settings.SUBMISSION_MAX_ATTEMPTS
    with transaction.atomic():
        if submission.attempts >= limit:
            changed = held.update(
                state=State.ERROR,
                finished_at=now,
                progress=None,
                message=f"Not judged: {reason}, on each of {limit} attempts. If your code can crash or exhaust "
                "the machine, that would do it; otherwise it is the platform's fault, so please submit again.",
            )
            result = State.ERROR
        else:
            changed = held.update(
                state=State.QUEUED,
                enqueued_at=now,
                heartbeat_at=None,
                progress=None,  # the next attempt starts from the first case
                message=f"Queued again: {reason} during attempt {submission.attempts} of {limit}.",
            )
            result = State.QUEUED
            if changed:
                transaction.on_commit(
                    partial(
                        submission_enqueue,
                        submission_id=submission.pk,
                        device_kind=submission.device_kind,
                        mode=submission.mode,
                    )
                )
        if not changed:
            return "unchanged"
        Attempt.objects.filter(submission_id=submission.pk, number=submission.attempts).update(
            outcome=outcome, ended_at=now, reason=reason[:1].upper() + reason[1:] + "."
        )
        if result == State.ERROR:
            _second_judging_not_run([submission.pk], f"{reason}, on each of {limit} attempts")
    return result


def submission_take_back(*, submission_id: int, worker: str, reason: str) -> str:
    """Give back a submission that `worker` could not judge for a reason of the platform's."""

    def give_back() -> str:
        submission = Submission.objects.filter(pk=submission_id, state=State.RUNNING, worker=worker).first()
        if submission is None:
            return "unchanged"
        return _take_back(submission, reason=reason, now=timezone.now(), outcome=Outcome.GIVEN_BACK)

    return reconnect.retrying(
        give_back, what=f"giving back submission {submission_id}", give_up_after_s=settings.DATABASE_RETRY_S
    )


@dataclass(frozen=True)
class SweepResult:
    requeued: int  # running with a stopped heartbeat, given another attempt
    ended: int  # running with a stopped heartbeat and no attempts left: ended as error
    resent: int  # queued, and its id sent again (never sent, lost by the broker)
    unserved: int = 0  # queued past SUBMISSION_UNSERVED_TIMEOUT_S for a device kind with no worker: cancelled


def submission_sweep(
    *,
    heartbeat_timeout_s: float | None = None,
    requeue_after_s: float | None = None,
    broker_lost: bool = False,
    take_back: bool = True,
) -> SweepResult:
    """Take back submissions whose worker stopped beating, and resend queued ids the broker does not hold.

    An id is resent when its send failed (no `enqueued_at`), when `broker_lost` (the broker restarted
    without its messages: every queued id), or when it was sent longer than `requeue_after_s` ago and the
    broker, which can be asked (Redis, the filesystem), no longer holds it. A backlog the broker still holds
    is never resent, however long it waits. `take_back=False` skips the take-backs (a sweeper that has just
    reconnected gives workers time to beat again first)."""
    now = timezone.now()
    outcomes = []
    if take_back:
        timeout = settings.HEARTBEAT_TIMEOUT_S if heartbeat_timeout_s is None else heartbeat_timeout_s
        stale = Submission.objects.filter(state=State.RUNNING).filter(
            Q(heartbeat_at__lt=now - timedelta(seconds=timeout)) | Q(heartbeat_at__isnull=True)
        )
        outcomes = [
            _take_back(s, reason=f"its worker {s.worker} stopped responding", now=now)
            for s in stale.only("pk", "worker", "attempts", "device_kind", "mode")
        ]
    after = settings.REQUEUE_AFTER_S if requeue_after_s is None else requeue_after_s
    queued = Submission.objects.filter(state=State.QUEUED)
    if not broker_lost:
        queued = queued.filter(
            Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - timedelta(seconds=after))
        )
    held: dict[str, set[int] | None] = {}
    resent = 0
    for pk, device_kind, mode, enqueued_at in queued.values_list("pk", "device_kind", "mode", "enqueued_at"):
        if enqueued_at is not None and not broker_lost:
            queue = judging_queue(device_kind, mode)
            if queue not in held:
                held[queue] = _held_ids(queue)
            if held[queue] is None or pk in held[queue]:
                continue  # it waits in the broker (or the broker cannot tell us: it redelivers)
        # Compare-and-set on enqueued_at: of two sweepers, one resends.
        if Submission.objects.filter(pk=pk, state=State.QUEUED, enqueued_at=enqueued_at).update(
            enqueued_at=now
        ):
            if submission_enqueue(submission_id=pk, device_kind=device_kind, mode=mode):
                resent += 1
    if resent:
        tally(RESENDS, resent)
    unserved = submission_end_unserved(now=now)
    return SweepResult(outcomes.count(State.QUEUED), outcomes.count(State.ERROR), resent, unserved)


def submission_end_unserved(*, now: datetime | None = None) -> int:
    """Take off the queue (cancelled, with the reason) the submissions of device kinds that no worker has
    served for SUBMISSION_UNSERVED_TIMEOUT_S, once they have waited that long. Returns how many."""
    limit_s = settings.SUBMISSION_UNSERVED_TIMEOUT_S
    if not limit_s:
        return 0
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=limit_s)
    served = served_device_kinds(now=now)
    last_seen = device_kind_last_seen(now=now)
    ended = 0
    for queue in JUDGING_QUEUES:  # each device kind's ranked queue, and its exploration queue
        if queue in served or last_seen.get(queue, cutoff) > cutoff:
            continue
        kind = queue_device_kind(queue)
        mode = EXPLORE if queue != kind else Mode.LEADERBOARD  # the queue's tier
        what = f"the {kind} device kind" if queue == kind else f"the {kind} device kind's exploration queue"
        stale = Submission.objects.filter(
            state=State.QUEUED, device_kind=kind, created_at__lt=cutoff, mode__in=tier_modes(mode)
        )
        seconds = list(stale.filter(confirms__isnull=False).values_list("pk", flat=True))
        with transaction.atomic():
            ended += stale.update(
                state=State.CANCELLED,
                finished_at=now,
                message=f"Not judged: no worker has served {what} for {_duration_words(int(limit_s))}, "
                f"so it was taken off the queue. Submit it again once a worker serves {queue} (the submit page "
                "and `kernelboard devices` show which device kinds are served).",
            )
            cancelled = Submission.objects.filter(pk__in=seconds, state=State.CANCELLED)
            _second_judging_not_run(
                list(cancelled.values_list("pk", flat=True)), f"no worker served {kind}, so it was cancelled"
            )
    return ended


def submission_cancel(*, user, submission_id: int) -> Submission:
    """The author takes a queued submission off the queue: it ends as cancelled and is never judged.
    A compare-and-set on `queued`, so that a worker's claim and a cancel cannot both win. Raises NotFound
    for another user's (as for a missing one) and Conflict for one that is running or final."""
    submission = Submission.objects.filter(pk=submission_id, user=user).only("state", "confirms").first()
    if submission is None:
        raise NotFound(f"You have no submission #{submission_id}.")
    if submission.confirms_id is not None:
        raise Conflict(
            f"Submission #{submission_id} is the platform's second judging of #{submission.confirms_id}, "
            "which ranks once it is done; it cannot be cancelled."
        )
    if Submission.objects.filter(pk=submission_id, state=State.QUEUED).update(
        state=State.CANCELLED,
        finished_at=timezone.now(),
        progress=None,
        message="Cancelled by its author before it was judged.",
    ):
        submission.refresh_from_db()
        return submission
    submission.refresh_from_db(fields=["state"])
    if submission.state == State.RUNNING:
        raise Conflict(
            f"Submission #{submission_id} is being judged now and cannot be cancelled; it ends within its "
            "mode's time limit."
        )
    raise Conflict(
        f"Submission #{submission_id} is {submission.state} already: only a queued one can be cancelled."
    )


def worker_beat(*, name: str, device_kinds: list[str], started_at: datetime) -> None:
    """A worker records that it serves these device kinds, now (written by the worker itself, workers.py)."""
    now = timezone.now()
    Worker.objects.update_or_create(
        name=name,
        defaults={
            "device_kinds": ",".join(sorted(set(device_kinds))),
            "started_at": started_at,
            "beat_at": now,
            "stopped_at": None,
        },
    )


def worker_stopped(*, name: str) -> None:
    """A worker shutting down cleanly: from now on it serves nothing."""
    Worker.objects.filter(name=name).update(stopped_at=timezone.now())


def _held_ids(queue: str) -> set[int] | None:
    try:
        return broker.held_ids(queue)
    except Exception:  # the broker is down: sending would fail too; the next round tries again
        logger.warning("could not ask the broker what the %s queue holds", queue, exc_info=True)
        return None


def submission_operator_requeue(*, submission_id: int, operator: str) -> str:
    """An operator puts a queued or running submission (back) on its queue: a running one's attempt ends
    (its worker's late report will be dropped), a queued one's id is sent again. A final one is left alone.
    Returns what happened: "queued", "resent" or "unchanged"."""
    now = timezone.now()
    submission = (
        Submission.objects.filter(pk=submission_id)
        .only("state", "worker", "attempts", "device_kind", "mode")
        .first()
    )
    if submission is None or submission.is_final:
        return "unchanged"
    if submission.state == State.QUEUED:
        if Submission.objects.filter(pk=submission_id, state=State.QUEUED).update(enqueued_at=now):
            submission_enqueue(
                submission_id=submission_id, device_kind=submission.device_kind, mode=submission.mode
            )
            return "resent"
        return "unchanged"
    with transaction.atomic():
        changed = Submission.objects.filter(
            pk=submission_id, state=State.RUNNING, worker=submission.worker, attempts=submission.attempts
        ).update(
            state=State.QUEUED,
            enqueued_at=now,
            heartbeat_at=None,
            progress=None,
            message=f"Queued again by an operator during attempt {submission.attempts}.",
        )
        if not changed:
            return "unchanged"
        Attempt.objects.filter(submission_id=submission_id, number=submission.attempts).update(
            outcome=Outcome.ENDED, ended_at=now, reason=f"Queued again by an operator ({operator})."
        )
        transaction.on_commit(
            partial(
                submission_enqueue,
                submission_id=submission_id,
                device_kind=submission.device_kind,
                mode=submission.mode,
            )
        )
    return State.QUEUED


def submission_operator_end(*, submission_id: int, operator: str, reason: str) -> str:
    """An operator ends a queued or running submission as `error`, with a reason its author reads.
    Returns "error" or "unchanged" (it was final already)."""
    now = timezone.now()
    reason = reason.strip() or "no reason given"
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update().filter(pk=submission_id).only("state", "attempts").first()
        )
        if submission is None or submission.is_final:
            return "unchanged"
        Submission.objects.filter(pk=submission_id).update(
            state=State.ERROR, finished_at=now, message=f"Ended by an operator: {reason}"
        )
        Attempt.objects.filter(submission_id=submission_id, outcome=Outcome.RUNNING).update(
            outcome=Outcome.ENDED, ended_at=now, reason=f"Ended by an operator ({operator}): {reason}"
        )
        _second_judging_not_run([submission_id], f"ended by an operator: {reason}")
    return State.ERROR

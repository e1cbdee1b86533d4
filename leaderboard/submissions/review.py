"""The review of finished submissions, the last steps of their state machine: staff deciding a flagged
run, and rejudging a submission (the admin's actions call these).

Each is a compare-and-set on the submission's state, like every other change of state (see
leaderboard.submissions.services): of two staff deciding the same run at once, the second changes nothing.
"""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.utils import timezone

from leaderboard.errors import Refusal
from leaderboard.submissions.models import FINAL_STATES, Attempt, Run, State, Submission
from leaderboard.submissions.selectors import rankings_changed
from leaderboard.submissions.services import submission_enqueue, submission_leader_reviewed

# A flagged case kept its outputs right; once staff accept the run, it counts as passed.
_ACCEPTED_CASE_STATUSES = ("passed", "flagged")


def submission_accept_flagged(*, submission_id: int, reviewer, note: str = "") -> Submission:
    """Staff looked at the evidence and believe the result: the flagged run becomes passed, and ranks if
    its mode ranks. Its flags stay on the run, as the record of what was reviewed."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(submission_id=submission_id).first()
        message = f"Accepted by {reviewer.username} after review of its flags." + (f" {note}" if note else "")
        if run is None or not Submission.objects.filter(pk=submission_id, state=State.FLAGGED).update(
            state=State.PASSED, message=message
        ):
            raise Refusal(f"Submission #{submission_id} is not flagged (any more); nothing was changed.")
        cases = list(run.cases.values_list("kind", "status"))
        public = [status for kind, status in cases if kind in ("test", "benchmark")]
        secret = [status for kind, status in cases if kind == "secret"]
        run.verdict = State.PASSED
        run.message = message
        run.flagged = False
        run.public_passed = bool(public) and all(s in _ACCEPTED_CASE_STATUSES for s in public)
        run.secret_passed = bool(secret) and all(s in _ACCEPTED_CASE_STATUSES for s in secret)
        run.save(update_fields=["verdict", "message", "flagged", "public_passed", "secret_passed"])
        # A leader is judged again before it ranks, whoever passed it (docs/platform.md, "Rankings").
        submission_leader_reviewed(submission_id=submission_id)
    rankings_changed()
    return Submission.objects.get(pk=submission_id)


def submission_reject_flagged(*, submission_id: int, reviewer, note: str = "") -> Submission:
    """Staff looked at the evidence and do not believe the result: the run ends as rejected and stays out
    of the rankings for good."""
    message = f"Rejected by {reviewer.username} after review of its flags." + (f" {note}" if note else "")
    with transaction.atomic():
        if not Submission.objects.filter(pk=submission_id, state=State.FLAGGED).update(
            state=State.REJECTED, message=message
        ):
            raise Refusal(f"Submission #{submission_id} is not flagged (any more); nothing was changed.")
        Run.objects.filter(submission_id=submission_id).update(verdict=State.REJECTED, message=message)
    rankings_changed()
    return Submission.objects.get(pk=submission_id)


def submission_rejudge(*, submission_id: int, reviewer) -> Submission:
    """Judge a finished submission again from scratch: its run and its attempts' history are deleted, it
    is queued with a fresh set of attempts and its id is sent to its device kind's queue once committed."""
    now = timezone.now()
    with transaction.atomic():
        submission = Submission.objects.select_for_update().filter(pk=submission_id).first()
        if submission is None or submission.state not in FINAL_STATES:
            raise Refusal(
                f"Submission #{submission_id} is not finished; only a finished one can be rejudged."
            )
        Run.objects.filter(submission_id=submission_id).delete()
        # From scratch, attempts too: their numbers start again at 1, and a claim would collide with the old.
        Attempt.objects.filter(submission_id=submission_id).delete()
        Submission.objects.filter(pk=submission_id, state=submission.state).update(
            state=State.QUEUED,
            attempts=0,
            worker="",
            heartbeat_at=None,
            started_at=None,
            finished_at=None,
            enqueued_at=now,
            message=f"Queued again for a rejudge by {reviewer.username}.",
            confirmation="",  # its new run meets the leaders' gate afresh (services._judge_again_or_settle)
        )
        if submission.confirms_id is not None:  # a second judging judged again: its first waits for it anew
            Submission.objects.filter(pk=submission.confirms_id).update(confirmation="pending")
        transaction.on_commit(
            partial(submission_enqueue, submission_id=submission_id, device_kind=submission.device_kind)
        )
    rankings_changed()
    return Submission.objects.get(pk=submission_id)

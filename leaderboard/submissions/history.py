"""A submission's attempts, told in plain words for its author (the web page and the API).

The submission's own `message` says where it is now; when a worker stopped responding and another judged
it, that "Queued again: ..." reason is replaced by the verdict. The attempts keep what happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from leaderboard.submissions.models import Attempt, Outcome, Submission


@dataclass(frozen=True)
class AttemptView:
    number: int
    worker: str
    started_at: datetime
    ended_at: datetime | None
    outcome: str
    reason: str
    late_result_dropped: bool
    summary: str  # one sentence for the author


def _took(attempt: Attempt) -> str:
    if attempt.ended_at is None:
        return ""
    seconds = (attempt.ended_at - attempt.started_at).total_seconds()
    return f" after {seconds:.0f} s" if seconds >= 1 else " within a second"


def _summary(attempt: Attempt) -> str:
    start = (
        f"Attempt {attempt.number} on {attempt.worker}, started {attempt.started_at:%Y-%m-%d %H:%M:%S} UTC"
    )
    reason = f" {attempt.reason}" if attempt.reason else ""
    match attempt.outcome:
        case Outcome.RUNNING:
            text = f"{start}, is running."
        case Outcome.FINISHED:
            text = f"{start}, finished{_took(attempt)}: its verdict is the one shown."
        case Outcome.TAKEN_BACK:
            text = f"{start}, was taken back{_took(attempt)} and the submission queued again.{reason}"
        case Outcome.GIVEN_BACK:
            text = f"{start}, was given back{_took(attempt)}: the platform could not judge it there.{reason}"
        case _:
            text = f"{start}, was ended{_took(attempt)} by an operator.{reason}"
    if attempt.late_result_dropped:
        text += " Its worker finished later after all; that late result was set aside, not used."
    return text


def submission_history(*, submission: Submission) -> list[AttemptView]:
    return [
        AttemptView(
            number=a.number,
            worker=a.worker,
            started_at=a.started_at,
            ended_at=a.ended_at,
            outcome=a.outcome,
            reason=a.reason,
            late_result_dropped=a.late_result_dropped,
            summary=_summary(a),
        )
        for a in Attempt.objects.filter(submission=submission).order_by("number")
    ]

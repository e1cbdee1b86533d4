"""The judge's progress on the row: submission_progress is a compare-and-set (only the worker that holds the
running attempt writes), an attempt taken back starts with none, and the worker's ProgressWriter writes at
most about twice a second from its own thread and connection, always ending with the last case heard.
The whole path from a real judge to the row: test_submission_judge.py."""

import threading
import time

import pytest
from testbed import make_submission

from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.progress import ProgressWriter
from leaderboard.submissions.progress import progress_of as row_progress
from leaderboard.submissions.services import (
    submission_claim,
    submission_progress,
    submission_sweep,
    submission_take_back,
)


def case(done, total=4, status="passed"):
    """A case frame as the judge sends it: a benchmark run, each case timed."""
    frame = {"done": done, "total": total, "case": f"vectoradd[size={done}]", "status": status}
    return frame | {"kind": "benchmark", "kind_done": done, "kind_total": total, "median_s": 1e-5 * done}


def running(persona, worker="cpu@a"):
    submission = make_submission(persona.user)
    return submission_claim(submission_id=submission.pk, worker=worker)


def progress_of(submission):
    return Submission.objects.values_list("progress", flat=True).get(pk=submission.pk)


def test_the_worker_that_holds_the_run_writes_its_progress(problems, alice):
    claimed = running(alice)
    assert progress_of(claimed) is None
    assert submission_progress(
        submission_id=claimed.pk, worker="cpu@a", attempt=claimed.attempts, progress=case(1)
    )
    assert progress_of(claimed) == case(1)


def test_a_stale_worker_cannot_write(problems, alice, settings):
    settings.SUBMISSION_MAX_ATTEMPTS = 3
    claimed = running(alice)
    write = dict(submission_id=claimed.pk, attempt=claimed.attempts)
    assert not submission_progress(worker="cpu@other", progress=case(1), **write)
    assert progress_of(claimed) is None
    assert submission_progress(worker="cpu@a", progress=case(1), **write)

    # Taken back: the progress goes with the attempt, and the old worker can no longer write.
    assert submission_take_back(submission_id=claimed.pk, worker="cpu@a", reason="a test") == State.QUEUED
    assert progress_of(claimed) is None
    assert not submission_progress(worker="cpu@a", progress=case(2), **write)

    # The same worker claims it again: its first attempt's number is stale, the second's is not.
    again = submission_claim(submission_id=claimed.pk, worker="cpu@a")
    assert again.attempts == claimed.attempts + 1
    assert not submission_progress(worker="cpu@a", progress=case(3), **write)
    assert progress_of(claimed) is None
    assert submission_progress(
        submission_id=claimed.pk, worker="cpu@a", attempt=again.attempts, progress=case(1)
    )
    assert progress_of(claimed) == case(1)


def test_the_sweeper_taking_it_back_clears_the_progress(problems, alice):
    claimed = running(alice)
    submission_progress(submission_id=claimed.pk, worker="cpu@a", attempt=claimed.attempts, progress=case(2))
    Submission.objects.filter(pk=claimed.pk).update(heartbeat_at=None)
    submission_sweep(heartbeat_timeout_s=0)
    row = Submission.objects.get(pk=claimed.pk)
    assert row.state == State.QUEUED and row.progress is None


@pytest.mark.django_db(transaction=True)  # the writer's own thread and connection see committed rows only
def test_the_writer_throttles_and_always_ends_with_the_last_case(problems, alice):
    claimed = running(alice)
    total = 40
    with ProgressWriter(submission_id=claimed.pk, worker="cpu@a", attempt=claimed.attempts) as on_progress:
        started, seen = time.monotonic(), []
        for done in range(1, total + 1):  # forty cases in about a second, from another thread
            thread = threading.Thread(target=on_progress, args=(case(done, total),))
            thread.start()
            thread.join()
            time.sleep(0.025)
            seen.append((progress_of(claimed) or {}).get("done"))
        elapsed = time.monotonic() - started
    # Written while it ran, not only at the end, and never out of order.
    assert any(s is not None and s < total for s in seen), seen
    written = [s for s in seen if s is not None]
    assert written == sorted(written)
    assert progress_of(claimed) == case(total, total)  # the last case is always written
    # At most one write per half second, plus the last one at the end.
    assert 2 <= on_progress.writes <= elapsed / 0.5 + 2


@pytest.mark.django_db(transaction=True)
def test_the_writer_of_a_worker_that_lost_the_run_writes_nothing(problems, alice):
    claimed = running(alice)
    Submission.objects.filter(pk=claimed.pk).update(worker="cpu@b")  # another worker has it now
    with ProgressWriter(submission_id=claimed.pk, worker="cpu@a", attempt=claimed.attempts) as on_progress:
        on_progress(case(1))
    assert progress_of(claimed) is None and on_progress.writes == 0


def test_the_row_keeps_only_the_frames_fields_of_their_types():
    """The frame is signed, but the row outlives this code: a kind outside the vocabulary, a median that is
    not a finite number, and any other field are not kept."""
    frame = case(2) | {"kind": "run", "median_s": float("nan"), "inputs": [1, 2, 3]}
    assert row_progress(frame) == case(2) | {"kind": "", "median_s": None}
    assert row_progress(case(3) | {"kind": "secret"}) == case(3) | {"kind": "secret"}

"""A worker frozen mid-judging (SIGSTOP): its heartbeat lapses, the sweeper gives the submission to another
worker, and when the frozen one wakes its late result is dropped and counted, never written over the new
one. (That the frozen worker's judge process stops itself is tests/runner/test_leash.py.)"""

import os
import signal
import time

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import Attempt, Outcome, Run, State, Submission
from leaderboard.submissions.tallies import LATE_RESULTS_DROPPED, tallies

pytestmark = [pytest.mark.slow, pytest.mark.chaos]


def test_a_frozen_workers_late_result_is_dropped_and_the_history_says_what_happened(
    chaos_workers, sweepers, chaos_alice
):
    frozen = chaos_workers.start("frozen", instant=True, INSTANT_JUDGE_DELAY_S="4")
    submission = make_submission(chaos_alice.user, source=vectoradd_source("frozen"))

    def row():
        return Submission.objects.get(pk=submission.pk)

    wait_for(lambda: row().state == State.RUNNING, timeout_s=60, what="the first worker to claim it")
    spare = chaos_workers.start("spare", instant=True, INSTANT_JUDGE_DELAY_S="1")
    os.killpg(frozen.proc.pid, signal.SIGSTOP)  # the worker and its pool process, heartbeat thread included
    frozen_at = time.monotonic()
    try:
        sweepers()
        final = wait_for(lambda: row().is_final and row(), timeout_s=60, what="the spare worker's verdict")
        handed_over_s = time.monotonic() - frozen_at
    finally:
        os.killpg(frozen.proc.pid, signal.SIGCONT)
    assert final.state == State.PASSED and final.attempts == 2 and final.worker == spare.hostname

    wait_for(
        lambda: "'taken back'" in frozen.output(), timeout_s=30, what="the frozen worker to wake and finish"
    )
    assert (
        Run.objects.filter(submission=submission).get().worker == spare.hostname
    )  # its run, not the late one
    first, second = Attempt.objects.filter(submission=submission)
    assert (first.worker, first.outcome, first.late_result_dropped) == (
        frozen.hostname,
        Outcome.TAKEN_BACK,
        True,
    )
    assert first.reason == "Its worker frozen@test stopped responding."
    assert (second.worker, second.outcome) == (spare.hostname, Outcome.FINISHED)
    assert tallies()[LATE_RESULTS_DROPPED] == 1
    assert row().state == State.PASSED  # the late report changed nothing
    print(f"\nFIGURE frozen worker: verdict by the spare worker {handed_over_s:.1f} s after the freeze")

"""A worker whose submission is taken from it while its judge runs (here by an operator; the sweeper does
the same to a worker cut off from the database) lets that judge go at once, so that two judges never run
one submission. Real runner, real worker."""

import time
from pathlib import Path

import pytest
from testbed import make_submission, wait_for

from leaderboard.submissions.models import Attempt, Outcome, State, Submission
from leaderboard.submissions.services import submission_operator_requeue

pytestmark = [pytest.mark.slow, pytest.mark.chaos]

SLEEPING_KERNEL = """
import time
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    time.sleep(120)
"""


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for tid in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(p) for p in (tid / "children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def judges_under(pid: int) -> list[int]:
    out = []
    for child in descendants(pid):
        try:
            if b"runner.judge" in Path(f"/proc/{child}/cmdline").read_bytes():
                out.append(child)
        except OSError:
            pass
    return out


def test_a_worker_that_loses_its_submission_stops_its_judge_at_once(chaos_workers, chaos_alice):
    # The judge exec'd, so that its command line tells it from the fork server's (forks keep the server's).
    worker = chaos_workers.start("judging", RUNNER_SANDBOX="none", RUNNER_LEASH_S="20", RUNNER_FORKSERVER="0")
    submission = make_submission(chaos_alice.user, source=SLEEPING_KERNEL)
    wait_for(
        lambda: Submission.objects.get(pk=submission.pk).state == State.RUNNING, timeout_s=60, what="a claim"
    )
    judge = wait_for(lambda: judges_under(worker.proc.pid), timeout_s=60, what="the judge to start")[0]
    wait_for(lambda: descendants(judge), timeout_s=60, what="the contestant to start")

    assert submission_operator_requeue(submission_id=submission.pk, operator="test") == State.QUEUED
    taken = time.monotonic()
    wait_for(lambda: not Path(f"/proc/{judge}").exists(), timeout_s=10, what="the old judge to stop")
    gone_s = time.monotonic() - taken
    assert gone_s < 5  # the heartbeat (0.5 s) let it go; the 20 s leash did not have to
    first = Attempt.objects.get(submission=submission, number=1)
    assert first.outcome == Outcome.ENDED
    wait_for(
        lambda: "its judge is stopped (1 let go)" in worker.output(), timeout_s=10, what="the worker's log"
    )
    print(f"\nFIGURE judge let go: the old judge gone {gone_s:.1f} s after its submission was taken back")

"""The database restarts under the platform's long-lived loops: each reconnects on its own, nothing is
judged twice, no report is lost, and a sweeper whose database stays down exits with status 1.

Real components: a PostgreSQL cluster of the test's own (stopped and started), the private Redis, real
`celery worker` and `manage.py sweep` processes. The figures these tests print are in docs/benchmarks.md.
"""

import collections
import time

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions import reconnect
from leaderboard.submissions.models import Attempt, Beat, Outcome, Run, State, Submission
from leaderboard.submissions.services import submission_claim
from leaderboard.submissions.tallies import HEARTBEAT_FAILURES, tallies

pytestmark = [pytest.mark.slow, pytest.mark.chaos]


def submit(persona, note: str) -> Submission:
    return make_submission(persona.user, source=vectoradd_source(note))


def read(query):
    """A read by the test itself, which lives through the restarts too."""

    def attempt():
        try:
            reconnect.refresh()
            return query()
        except reconnect.DISCONNECTED:
            reconnect.drop()
            return None

    return attempt


def test_the_sweeper_reconnects_after_a_restart_and_exits_1_when_the_database_stays_down(
    chaos_db, sweepers, chaos_alice
):
    sweeper = sweepers(SWEEP_GIVE_UP_S="4")
    wait_for(read(lambda: Beat.objects.filter(name="sweeper").exists()), timeout_s=30, what="a first sweep")

    chaos_db.restart(down_s=1.5)  # every connection is closed by the server
    up = time.monotonic()
    reconnect.drop()
    ghost = submission_claim(
        submission_id=submit(chaos_alice, "ghost").pk, worker="ghost@test"
    )  # never beats
    taken_back = wait_for(
        read(lambda: Submission.objects.filter(pk=ghost.pk, state=State.QUEUED).exists()),
        timeout_s=30,
        what="the sweeper to take back a submission after the restart",
    )
    recovered_s = time.monotonic() - up
    assert taken_back
    out = sweeper.output()
    assert "the database answers again" in out, out
    assert sweeper.proc.poll() is None
    attempt = Attempt.objects.get(submission_id=ghost.pk)
    assert (
        attempt.outcome == Outcome.TAKEN_BACK
        and attempt.reason == "Its worker ghost@test stopped responding."
    )

    chaos_db.stop()
    down = time.monotonic()
    code = wait_for(lambda: sweeper.proc.poll(), timeout_s=30, what="the sweeper to give up")
    gave_up_s = time.monotonic() - down
    assert code == 1
    assert "has not answered for 4 s; stopping" in sweeper.output()
    print(
        f"\nFIGURE sweeper: first take-back {recovered_s:.1f} s after the restart; exit 1 after {gave_up_s:.1f} s down"
    )


def test_a_judging_through_a_database_restart_keeps_its_worker_and_its_report(
    chaos_workers, sweepers, chaos_db, chaos_alice, tmp_path
):
    judged_log = tmp_path / "judged.log"
    chaos_workers.start("steady", instant=True, INSTANT_JUDGE_DELAY_S="4", INSTANT_JUDGE_LOG=str(judged_log))
    sweepers()  # takes back whatever stops beating for HEARTBEAT_TIMEOUT_S (3 s here)
    wait_for(read(lambda: Beat.objects.filter(name="sweeper").exists()), timeout_s=30, what="a first sweep")
    submission = submit(chaos_alice, "through a restart")
    wait_for(
        read(lambda: Submission.objects.filter(pk=submission.pk, state=State.RUNNING).exists()),
        timeout_s=60,
        what="the worker to claim it",
    )
    time.sleep(1)
    # Down for 5 s: longer than the heartbeat timeout, and across the moment the judge finishes (4 s).
    chaos_db.restart(down_s=5)
    up = time.monotonic()
    final = wait_for(
        read(lambda: (row := Submission.objects.get(pk=submission.pk)).is_final and row),
        timeout_s=60,
        what="a final state",
    )
    recovered_s = time.monotonic() - up
    assert final.state == State.PASSED and final.attempts == 1, final.message
    assert Run.objects.filter(submission=submission).count() == 1
    assert list(Attempt.objects.filter(submission=submission).values_list("outcome", flat=True)) == [
        Outcome.FINISHED
    ]
    assert tallies().get(HEARTBEAT_FAILURES, 0) >= 1  # it did beat into the outage, and went on
    assert collections.Counter(judged_log.read_text().split()).most_common(1)[0][1] == 1
    print(f"\nFIGURE worker: verdict written {recovered_s:.1f} s after the database came back (down 5 s)")

"""The same id delivered three times, to two pool processes at once: judged once."""

import hashlib

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import Run, State, Submission
from leaderboard.submissions.services import submission_enqueue


@pytest.mark.slow
def test_a_duplicate_delivery_is_judged_once(workers, problems, alice, tmp_path):
    judged_log = tmp_path / "judged.log"
    worker = workers.start(
        "dup", concurrency=2, instant=True, INSTANT_JUDGE_LOG=str(judged_log), INSTANT_JUDGE_DELAY_S="1"
    )
    source = vectoradd_source("duplicate")
    submission = make_submission(alice.user, source=source)  # sent once, on commit
    assert submission_enqueue(submission_id=submission.pk, device_kind="cpu")  # and twice more
    assert submission_enqueue(submission_id=submission.pk, device_kind="cpu")

    wait_for(lambda: worker.output().count("succeeded in") == 3, timeout_s=60, what="three deliveries")
    assert worker.output().count("'not claimed'") == 2
    row = Submission.objects.get(pk=submission.pk)
    assert row.state == State.PASSED and row.attempts == 1
    assert Run.objects.filter(submission=submission).count() == 1
    assert judged_log.read_text().split() == [hashlib.sha256(source.encode()).hexdigest()]

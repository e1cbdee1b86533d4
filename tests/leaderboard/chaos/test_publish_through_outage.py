"""Publishing through a broker outage: a submission made while Redis is down is recorded as never sent, and
goes out at the sweeper's next round once Redis is back; the web process's next publish reconnects by
itself."""

import time

import pytest
from testbed import make_submission, vectoradd_source

from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import submission_sweep
from leaderboard.submissions.tallies import PUBLISH_FAILURES, tallies

pytestmark = [pytest.mark.slow, pytest.mark.chaos]


def submit(persona, note):
    return make_submission(persona.user, source=vectoradd_source(note))


def test_a_submission_made_while_the_broker_is_down_is_sent_when_it_is_back(
    transactional_db, problems, alice, broker, no_limits
):
    assert submit(alice, "before") and broker.client().llen("cpu") == 1  # the publisher's connection is open
    broker.stop()
    started = time.monotonic()
    during = submit(alice, "during")  # the user gets their submission; the send fails behind it
    publish_s = time.monotonic() - started
    row = Submission.objects.get(pk=during.pk)
    assert row.state == "queued" and row.enqueued_at is None  # "never sent": the sweeper's first pick
    assert tallies()[PUBLISH_FAILURES] == 1
    assert submission_sweep(requeue_after_s=600).resent == 0  # still down: it stays unsent
    assert Submission.objects.get(pk=during.pk).enqueued_at is None

    broker.start()  # empty: the first message was lost with it
    assert submission_sweep(requeue_after_s=600).resent == 1  # the unsent one, at once
    after = submit(alice, "after")  # the publisher reconnects by itself
    assert Submission.objects.get(pk=after.pk).enqueued_at is not None
    assert broker.client().llen("cpu") == 2
    print(f"\nFIGURE publish: a submission made with the broker down answered in {publish_s:.1f} s")

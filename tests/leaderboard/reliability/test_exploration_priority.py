"""A ranked submission never waits behind an agent's exploration candidates: a real worker serving both
of cpu's queues (cpu, cpu.explore) judges the queued ranked submission before its next candidate, whatever
the broker delivers (docs/platform.md, "The exploration tier"). The worker's judge is the fast trusted one
(instant_judge.py, a second per judging): the order is what is tested, not the runner."""

import pytest
from testbed import make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import State, Submission

pytestmark = pytest.mark.slow


def test_a_ranked_submission_is_judged_before_the_candidates_queued_ahead_of_it(
    workers, broker, problems, alice, bob, no_limits
):
    candidates = [
        make_submission(alice.user, mode="explore", source=vectoradd_source(f"candidate {n}"))
        for n in range(6)
    ]
    lost = make_submission(bob.user, mode="leaderboard")
    # Its message is lost (a broker restart): only the database says it waits. No sweeper runs here.
    assert broker.client().delete("cpu") == 1
    workers.start("both", instant=True, queues="cpu,cpu.explore", INSTANT_JUDGE_DELAY_S="1")

    lost = wait_for(
        lambda: Submission.objects.filter(pk=lost.pk, state=State.PASSED).first(),
        timeout_s=60,
        what="the ranked submission whose message was lost to be judged",
    )
    started = Submission.objects.filter(pk__in=[c.pk for c in candidates], started_at__isnull=False)
    assert started.exists()  # it was judged as the first candidate was taken, not after them all
    assert all(lost.started_at < c.started_at for c in started)

    # While a candidate runs, a ranked submission arrives the ordinary way: no candidate starts before it.
    wait_for(
        lambda: Submission.objects.filter(mode="explore", state=State.RUNNING).exists(),
        timeout_s=30,
        what="a candidate to be judged",
    )
    ranked = make_submission(bob.user, mode="test")
    everything = [*candidates, lost, ranked]
    wait_for(
        lambda: (
            Submission.objects.filter(pk__in=[s.pk for s in everything], state=State.PASSED).count()
            == len(everything)
        ),
        timeout_s=60,
        what="every submission to be judged",
    )
    ranked.refresh_from_db()
    after = Submission.objects.filter(mode="explore", started_at__gt=ranked.created_at)
    assert after.exists(), "the candidates were all judged before the ranked one was made: nothing tested"
    assert all(c.started_at > ranked.finished_at for c in after)

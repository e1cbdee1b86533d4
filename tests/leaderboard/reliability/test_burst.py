"""A burst of 200 submissions through the API, two workers: all reach a final state, each judged once."""

import collections
import hashlib

import pytest
from testbed import vectoradd_source, wait_for

from leaderboard.submissions.models import FINAL_STATES, Run, State, Submission


@pytest.mark.slow
def test_a_burst_of_200_all_reach_a_final_state(workers, client, problems, alice, bob, no_limits, tmp_path):
    judged_log = tmp_path / "judged.log"
    started = [
        workers.start(name, instant=True, wait=False, INSTANT_JUDGE_LOG=str(judged_log))
        for name in ("one", "two")
    ]
    sources = [vectoradd_source(f"burst {i}") for i in range(200)]
    for i, source in enumerate(sources):
        persona = (alice, bob)[i % 2]
        response = client.post(
            "/api/submissions",
            {"problem": "vectoradd", "device": "cpu", "mode": "test", "source": source},
            content_type="application/json",
            headers=persona.auth,
        )
        assert response.status_code == 201, response.content

    for worker in started:
        worker.wait_until_ready()
    finals = Submission.objects.filter(state__in=FINAL_STATES)
    wait_for(lambda: finals.count() == 200, timeout_s=180, what="200 final states", every_s=0.5)
    assert Submission.objects.filter(state=State.PASSED, attempts=1).count() == 200
    assert Run.objects.count() == 200
    assert set(Run.objects.values_list("worker", flat=True)) == {"one@test", "two@test"}  # both took work
    judged = collections.Counter(judged_log.read_text().split())
    assert judged == collections.Counter(hashlib.sha256(s.encode()).hexdigest() for s in sources)

"""Leaders judged again (issue 30): a leaderboard run that would enter the top LEADERS_JUDGED_AGAIN is held
back and judged once more, as a submission of its own queued at once, before it ranks; it then ranks on the
slower of its two secret runs, or not at all when the second judging did not pass. Real database, reports
of the test's choosing through the services (no runner)."""

import pytest
import testbed

from leaderboard.errors import Conflict
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions.models import Submission
from leaderboard.submissions.selectors import ranking_for_problem
from leaderboard.submissions.services import submission_cancel
from runner.spec import CaseResult, RunReport, Stats


def report(score_s: float, verdict: str = "passed") -> RunReport:
    stats = Stats(
        n=50, windows=10, mean=score_s, std=0.0, stderr=1e-9, min=score_s, max=score_s, median=score_s
    )
    status = "passed" if verdict == "passed" else "failed"
    return RunReport(
        verdict=verdict,
        message="" if verdict == "passed" else "vectoradd[size=256]: 3 of 256 values differ",
        problem="vectoradd",
        mode="leaderboard",
        device="cpu",
        score_s=score_s if verdict == "passed" else None,
        score_low_s=score_s * 0.99 if verdict == "passed" else None,
        score_high_s=score_s * 1.01 if verdict == "passed" else None,
        cases=[
            CaseResult(id="vectoradd[size=31]", kind="test", status="passed"),
            CaseResult(id="vectoradd[size=256]", kind="benchmark", status="passed", stats=stats),
            CaseResult(id="vectoradd[size=256]", kind="secret", status=status, stats=stats),
        ],
    )


def judge(submission: Submission, score_s: float, verdict: str = "passed") -> Submission:
    return testbed.finish(testbed.claim(submission), report(score_s, verdict))


def first_run(persona, score_s: float) -> Submission:
    made = testbed.make_submission(
        persona.user,
        source=testbed.vectoradd_source(f"{persona.user.username} {score_s}"),
        mode="leaderboard",
    )
    return judge(made, score_s)


def ranking():
    entries = ranking_for_problem(problem=problem_get(name="vectoradd"), device_kind="cpu")
    return [(e.username, e.score_s) for e in entries]


@pytest.fixture
def top_two(settings, problems, no_limits):
    settings.LEADERS_JUDGED_AGAIN = 2


def test_a_leader_ranks_only_after_a_second_judging_and_on_the_slower_run(top_two, bob, alice):
    first = first_run(bob, 1.0e-5)
    assert first.state == "passed" and first.confirmation == "pending"
    assert ranking() == []  # held back until judged again
    [again] = first.confirmations.all()
    assert (again.state, again.mode, again.user_id) == ("queued", "leaderboard", bob.user.pk)
    assert again.source.text == first.source.text and again.source_id != first.source_id

    judge(again, 1.2e-5)  # the fresh secret inputs ran slower
    first.refresh_from_db()
    assert first.confirmation == "confirmed"
    assert ranking() == [("bob", 1.2e-5)]  # the slower of the two; the second never ranks itself
    assert first.run.score_low_s == pytest.approx(1.2e-5 * 0.99)
    assert f"#{again.pk} judged it again" in first.run.score_note
    assert first.run.report["score_s"] == 1.0e-5  # every run stays in its history, whole


def test_a_second_judging_that_fails_keeps_the_first_out_and_says_why(top_two, bob):
    first = first_run(bob, 1.0e-5)
    judge(first.confirmations.get(), 0, verdict="failed")
    first.refresh_from_db()
    assert first.confirmation == "refuted" and ranking() == []
    assert f"Judged again with fresh secret inputs (#{first.confirmations.get().pk})" in first.message
    assert "3 of 256 values differ" in first.message and "not ranked" in first.message


def test_only_a_run_that_would_enter_the_top_is_judged_again(top_two, alice, bob, robo, settings):
    for persona, score in ((alice, 1e-5), (bob, 2e-5)):
        judge(first_run(persona, score).confirmations.get(), score)
    assert [u for u, _ in ranking()] == ["alice", "bob"]
    third = first_run(robo, 3e-5)  # two entries ahead of it: outside the top two
    assert third.confirmation == "" and not third.confirmations.exists()
    assert [u for u, _ in ranking()] == ["alice", "bob", "robo"]
    slower = first_run(alice, 5e-5)  # alice's own better entry stands: no ranking changes
    assert slower.confirmation == "" and not slower.confirmations.exists()
    settings.LEADERS_JUDGED_AGAIN = 0
    assert first_run(robo, 0.5e-5).confirmation == ""  # off: ranks on its one run


def test_the_author_cannot_cancel_the_second_judging(top_two, bob):
    again = first_run(bob, 1.0e-5).confirmations.get()
    with pytest.raises(Conflict, match="second judging"):
        submission_cancel(user=bob.user, submission_id=again.pk)
    again.refresh_from_db()
    assert again.state == "queued"


def test_both_pages_say_where_the_leader_stands(top_two, bob, client):
    first = first_run(bob, 1.0e-5)
    again = first.confirmations.get()
    client.force_login(bob.user)
    page = client.get(f"/submissions/{first.pk}/").content.decode()
    assert (
        f'A leader: judged again with fresh secret inputs (<a href="/submissions/{again.pk}/">#{again.pk}</a>) before it ranks'
        in page
    )
    other = client.get(f"/submissions/{again.pk}/").content.decode()
    assert f'The platform\'s second judging of <a href="/submissions/{first.pk}/">#{first.pk}</a>' in other
    judge(again, 1.1e-5)
    assert (
        "it ranks on the slower of its two secret runs"
        in client.get(f"/submissions/{first.pk}/").content.decode()
    )
    assert "Leaders judged again" in client.get("/scoring/").content.decode()


def test_a_rejudge_meets_the_gate_afresh(top_two, bob):
    """Staff rejudge a refuted leader: its new run is judged again like any leader's, not left refuted
    (and a worker can claim a rejudged submission at all: its old attempt numbers once collided)."""
    from leaderboard.submissions.review import submission_rejudge

    first = first_run(bob, 1.0e-5)
    judge(first.confirmations.get(), 0, verdict="failed")
    first.refresh_from_db()
    assert first.confirmation == "refuted"
    submission_rejudge(submission_id=first.pk, reviewer=testbed.make_persona("reviewer").user)
    first.refresh_from_db()
    assert (first.state, first.confirmation) == ("queued", "")
    judge(first, 1.0e-5)
    first.refresh_from_db()
    assert first.confirmation == "pending" and first.confirmations.filter(state="queued").count() == 1


def test_the_score_note_is_stored_as_the_judge_wrote_it(problems, alice, no_limits):
    made = testbed.make_submission(alice.user, source=testbed.vectoradd_source("note"), mode="leaderboard")
    written = report(1e-5)
    written.score_note = "the times were noisy: the 95 % interval spans \u00b16 %"
    judged = testbed.finish(testbed.claim(made), written)
    assert judged.run.score_note == "the times were noisy: the 95 % interval spans \u00b16 %"

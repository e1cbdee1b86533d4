"""Leaders judged again (issue 30): a leaderboard run that would enter the top LEADERS_JUDGED_AGAIN is held
back and judged once more, as a submission of its own queued at once, before it ranks; it then ranks on the
slower of its two secret runs, or not at all when the second judging did not pass. Real database, reports
of the test's choosing through the services (no runner)."""

import dataclasses
from datetime import timedelta

import pytest
import testbed

from leaderboard.errors import Conflict, LimitReached
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions.models import Submission
from leaderboard.submissions.selectors import ranking_for_problem
from leaderboard.submissions.services import submission_cancel, worker_beat
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


def judge(submission: Submission, score_s: float, verdict: str = "passed", platform_fault: bool = False):
    made = dataclasses.replace(report(score_s, verdict), platform_fault=platform_fault)
    return testbed.finish(testbed.claim(submission), made)


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


def test_second_judgings_hold_a_place_in_flight_but_not_in_the_hourly_count(top_two, bob, settings):
    """A second (or third) judging is the author's work on the queue: it holds one of the author's places in
    flight, so that leaders whose judgings hang cannot put any number of ranked runs on the queue at once;
    it is not the author's request, so the hourly count leaves it out."""
    from django.utils import timezone

    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())
    settings.SUBMISSION_MAX_IN_FLIGHT, settings.SUBMISSION_MAX_PER_HOUR = 1, 2
    first = first_run(bob, 1.0e-5)
    again = first.confirmations.get()
    assert again.state == "queued"
    with pytest.raises(LimitReached, match="You have 1 submissions queued or running"):
        testbed.make_submission(bob.user, mode="leaderboard", source=testbed.vectoradd_source("next"))
    judge(again, 1.1e-5)
    # Settled: the place is free, and the second judging used none of the hour's two.
    testbed.make_submission(bob.user, mode="leaderboard", source=testbed.vectoradd_source("next"))


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


def rated_report(score_s: float, flops_per_s: float, verdict: str = "passed") -> RunReport:
    """A passing report whose secret case carries a FLOP rate (the runner's: the case's FLOPs over its
    median), or a flagged one (below the floor: outputs right, result suspect)."""
    made = report(score_s)
    for case in made.cases:
        if case.stats is not None:
            case.stats = dataclasses.replace(case.stats, flops_per_s=flops_per_s, bytes_per_s=flops_per_s * 4)
    if verdict == "flagged":
        made.verdict = "flagged"
        made.message = "vectoradd[size=256]: below the physical floor"
        made.cases[-1].status = "flagged"
        made.flags = [{"kind": "floor", "message": "below the floor", "evidence": None}]
    return made


def copy_of(persona, source: str) -> Submission:
    return testbed.make_submission(persona.user, source=source, mode="leaderboard")


def test_a_contests_own_leaders_are_judged_again_though_the_problems_top_is_full(top_two, alice, bob, robo):
    """F2: the gate reads every board the run enters. Two users faster of all time (before the contest)
    filled the problem's top two; a contest's leader must still be judged again before it leads there."""
    from datetime import timedelta

    from django.utils import timezone

    from leaderboard.contests.selectors import contest_pending
    from leaderboard.contests.services import contest_create

    for persona, score in ((alice, 1e-6), (robo, 2e-6)):
        judge(first_run(persona, score).confirmations.get(), score)
    Submission.objects.update(created_at=timezone.now() - timedelta(hours=2))
    now = timezone.now()
    contest = contest_create(
        name="sprint",
        title="Sprint",
        problems=[problem_get(name="vectoradd")],
        starts_at=now - timedelta(hours=1),
        ends_at=now + timedelta(hours=1),
    )
    leader = first_run(bob, 1.0e-5)  # third of all time, first in the contest
    assert leader.confirmation == "pending" and leader.confirmations.count() == 1
    assert contest_pending(contest=contest) == 1
    judge(leader.confirmations.get(), 1.1e-5)
    leader.refresh_from_db()
    assert leader.confirmation == "confirmed" and leader.run.score_s == 1.1e-5


def test_copies_of_a_leading_source_share_one_second_judging_and_rank_no_faster(top_two, bob):
    """F3: an author's copies of one file (the same sha256) are judged again once, and a copy's own draw
    can only make it slower: the best of n draws does not lead."""
    source = testbed.vectoradd_source("bob's leader")
    first, copy, late = (copy_of(bob, source) for _ in range(3))
    first = judge(first, 1.0e-5)
    copy = judge(copy, 0.8e-5)  # a luckier draw of the same file, while the first waits for its second
    assert first.confirmation == copy.confirmation == "pending"
    assert Submission.objects.filter(confirms__isnull=False).count() == 1  # one second judging, the first's
    assert ranking() == []
    judge(first.confirmations.get(), 1.2e-5)
    first.refresh_from_db()
    copy.refresh_from_db()
    assert (first.confirmation, copy.confirmation) == ("confirmed", "confirmed")
    assert copy.run.score_s == 1.2e-5 and f"the same source as #{first.pk}" in copy.run.score_note
    late = judge(late, 0.5e-5)  # a copy judged after its source settled: settled at once, no faster
    assert late.confirmation == "confirmed" and late.run.score_s == 1.2e-5
    assert Submission.objects.filter(confirms__isnull=False).count() == 1
    assert ranking() == [("bob", 1.2e-5)]


def test_copies_of_a_refuted_source_are_not_ranked(top_two, bob):
    source = testbed.vectoradd_source("bob's flaky one")
    first, copy = copy_of(bob, source), copy_of(bob, source)
    first, copy = judge(first, 1.0e-5), judge(copy, 0.9e-5)
    judge(first.confirmations.get(), 0, verdict="failed")
    copy.refresh_from_db()
    assert copy.confirmation == "refuted" and f"The same source as #{first.pk}" in copy.message
    assert ranking() == []


def test_an_accepted_flagged_leader_is_judged_again_before_it_ranks(top_two, bob):
    """F4: staff accepting a flagged run makes it pass; a leader is judged again whoever passed it. Its
    second judging flagged as well refutes it until staff accept that one too."""
    from leaderboard.submissions.review import submission_accept_flagged

    reviewer = testbed.make_persona("reviewer").user
    made = copy_of(bob, testbed.vectoradd_source("bob below the floor"))
    flagged = testbed.finish(testbed.claim(made), rated_report(1e-5, 1e9, verdict="flagged"))
    assert flagged.state == "flagged" and flagged.confirmation == ""
    submission_accept_flagged(submission_id=flagged.pk, reviewer=reviewer)
    flagged.refresh_from_db()
    assert (flagged.state, flagged.confirmation) == ("passed", "pending")
    assert ranking() == []
    again = flagged.confirmations.get()
    testbed.finish(testbed.claim(again), rated_report(1.1e-5, 0.9e9, verdict="flagged"))
    flagged.refresh_from_db()
    assert flagged.confirmation == "refuted" and ranking() == []
    submission_accept_flagged(submission_id=again.pk, reviewer=reviewer)
    flagged.refresh_from_db()
    assert flagged.confirmation == "confirmed" and ranking() == [("bob", 1.1e-5)]


def test_the_rates_shown_come_from_the_run_the_rank_uses(top_two, bob):
    """F6: a leader ranks on the slower of its two runs; its FLOP/s and bytes/s are that run's too."""
    from leaderboard.web.selectors import scored_rates

    made = copy_of(bob, testbed.vectoradd_source("bob rated"))
    first = testbed.finish(testbed.claim(made), rated_report(1.0e-5, 2.0e9))
    testbed.finish(testbed.claim(first.confirmations.get()), rated_report(1.25e-5, 1.6e9))
    assert ranking() == [("bob", 1.25e-5)]
    assert scored_rates(submission_ids=[first.pk]) == {first.pk: (pytest.approx(1.6e9), pytest.approx(6.4e9))}
    faster = copy_of(bob, testbed.vectoradd_source("bob rated, faster second"))
    faster = testbed.finish(testbed.claim(faster), rated_report(0.5e-5, 4.0e9))
    testbed.finish(testbed.claim(faster.confirmations.get()), rated_report(0.4e-5, 5.0e9))
    assert scored_rates(submission_ids=[faster.pk]) == {
        faster.pk: (pytest.approx(4.0e9), pytest.approx(16e9))
    }


def test_the_case_times_shown_come_from_the_run_the_rank_uses(top_two, bob, client):
    """The problem page's per-case times beside a leader's score (and its standing's comparison) are those
    of the judging it ranks on, not of its first, faster draw."""
    from leaderboard.web.selectors import benchmark_times

    first = first_run(bob, 1.0e-5)
    judge(first.confirmations.get(), 1.2e-5)
    assert ranking() == [("bob", 1.2e-5)]
    assert benchmark_times(submission_ids=[first.pk]) == {first.pk: {"vectoradd[size=256]": 1.2e-5}}
    page = client.get("/problems/vectoradd/").content.decode()
    assert '<td>1. bob</td><td class="num">12 us</td>' in page  # the size=256 column of the top's times


def test_a_second_judging_that_cannot_run_settles_its_first(top_two, bob, alice, settings):
    """A second judging cancelled for want of a worker, or ended by an operator, leaves its first
    `unconfirmed` (not ranked, saying why) instead of pending: nothing waits on it, a contest's final board
    included. Staff's rejudge of the second judging makes the first wait for it anew."""
    from datetime import timedelta

    from django.utils import timezone

    from leaderboard.submissions.review import submission_rejudge
    from leaderboard.submissions.services import submission_end_unserved, submission_operator_end

    first = first_run(bob, 1.0e-5)
    again = first.confirmations.get()
    settings.SUBMISSION_UNSERVED_TIMEOUT_S = 60
    Submission.objects.filter(pk=again.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert submission_end_unserved() == 1
    first.refresh_from_db()
    assert (
        first.confirmation == "unconfirmed"
        and f"second judging (#{again.pk}) could not be run" in first.message
    )
    assert "no worker served cpu" in first.message and ranking() == []

    submission_rejudge(submission_id=again.pk, reviewer=testbed.make_persona("reviewer").user)
    first.refresh_from_db()
    assert first.confirmation == "pending"
    other = first_run(alice, 0.9e-5)
    submission_operator_end(submission_id=other.confirmations.get().pk, operator="ops", reason="host retired")
    other.refresh_from_db()
    assert other.confirmation == "unconfirmed" and "ended by an operator: host retired" in other.message


def test_the_page_says_why_a_copy_or_an_unrun_second_judging_is_not_ranked(top_two, bob, client, settings):
    from leaderboard.submissions.services import submission_operator_end

    source = testbed.vectoradd_source("bob's page")
    first, copy = copy_of(bob, source), copy_of(bob, source)
    first, copy = judge(first, 1.0e-5), judge(copy, 0.9e-5)
    client.force_login(bob.user)
    page = client.get(f"/submissions/{copy.pk}/").content.decode()
    assert "A copy of a source of yours that is judged again before it ranks" in page
    again = first.confirmations.get()
    submission_operator_end(submission_id=again.pk, operator="ops", reason="host retired")
    page = client.get(f"/submissions/{first.pk}/").content.decode()
    assert f'Its second judging (<a href="/submissions/{again.pk}/">#{again.pk}</a>) could not be run' in page
    page = client.get(f"/submissions/{copy.pk}/").content.decode()
    assert "A copy of a source of yours that was judged again and is not ranked" in page


def test_a_second_judging_ended_by_the_platforms_fault_is_judged_once_more(top_two, bob, alice):
    """A second judging the judge reports as the platform's fault (a process killed from outside): the leader
    is judged a third time before it is refuted, and ranks if that passes; a second such end refutes."""
    first = first_run(bob, 1.0e-5)
    [second] = first.confirmations.all()
    judge(second, 0, verdict="error", platform_fault=True)
    first.refresh_from_db()
    assert first.confirmation == "pending" and ranking() == []
    third = first.confirmations.exclude(pk=second.pk).get()
    assert third.state == "queued" and f"#{second.pk} ended error by a fault of the platform" in third.message
    judge(third, 1.1e-5)
    first.refresh_from_db()
    assert first.confirmation == "confirmed" and ranking() == [("bob", 1.1e-5)]

    crashes = first_run(alice, 0.5e-5)
    for _ in range(2):
        judge(crashes.confirmations.filter(state="queued").get(), 0, verdict="error", platform_fault=True)
    crashes.refresh_from_db()
    assert crashes.confirmation == "refuted" and crashes.confirmations.count() == 2
    assert ranking() == [("bob", 1.1e-5)]


@pytest.mark.parametrize("verdict", ["error", "timeout"])
def test_a_kernels_own_error_or_timeout_refutes_without_another_draw(top_two, bob, verdict):
    """A kernel that raises, sleeps or kills itself on a draw it dislikes buys no other draw: refuted."""
    first = first_run(bob, 1.0e-5)
    judge(first.confirmations.get(), 0, verdict=verdict)
    first.refresh_from_db()
    assert first.confirmation == "refuted" and first.confirmations.count() == 1 and ranking() == []


def test_a_third_judging_never_makes_the_rank_faster(top_two, bob):
    """A third draw after a platform fault ranks on the slower of the passing runs: a faster third
    judging changes nothing; nor is any fourth judging made."""
    first = first_run(bob, 1.0e-5)
    judge(first.confirmations.get(), 0, verdict="error", platform_fault=True)
    third = first.confirmations.get(state="queued")
    judge(third, 0.5e-5)  # the lucky draw
    first.refresh_from_db()
    assert first.confirmation == "confirmed" and ranking() == [("bob", 1.0e-5)]
    assert first.confirmations.count() == 2


def test_a_leader_whose_decision_fails_is_judged_again_not_ranked_on_one_run(top_two, bob, monkeypatch):
    """The decision to judge a leader again fails closed: when it raises (a deadlock, say), the run is still
    written, and it is judged again rather than ranked on its one judging."""
    from leaderboard.submissions import services

    def deadlock(submission):
        raise services.DatabaseError("deadlock detected")

    monkeypatch.setattr(services, "_boards", deadlock)
    first = first_run(bob, 1.0e-5)
    assert first.state == "passed" and first.confirmation == "pending" and ranking() == []
    again = first.confirmations.get()
    assert again.state == "queued" and "could not be decided" in again.message
    monkeypatch.undo()
    judge(again, 1.2e-5)
    assert ranking() == [("bob", 1.2e-5)]


def test_a_second_judging_goes_to_another_idle_worker_where_there_is_one(
    top_two, bob, alice, broker, settings
):
    """On a real broker: the worker that judged the first run passes the second judging on (its id sent
    again) while another worker of the device kind beats and judges nothing; the other never passes it."""
    from django.utils import timezone

    from leaderboard.submissions import broker as queues
    from leaderboard.submissions.judging import another_worker_judges, submission_judge_delivered
    from leaderboard.submissions.models import Worker
    from leaderboard.submissions.services import worker_stopped

    for name in ("cpu@fixture", "cpu@other"):
        worker_beat(name=name, device_kinds=["cpu"], started_at=timezone.now())
    again = first_run(bob, 1.0e-5).confirmations.get()  # judged on cpu@fixture (testbed.claim's worker)
    assert submission_judge_delivered(submission_id=again.pk, worker="cpu@fixture") == "passed on"
    again.refresh_from_db()
    assert (again.state, again.attempts, again.worker) == ("queued", 0, "")
    assert again.pk in queues.held_ids("cpu")
    assert not another_worker_judges(submission_id=again.pk, worker="cpu@other")

    def passes_on() -> bool:
        return another_worker_judges(submission_id=again.pk, worker="cpu@fixture")

    # Whenever no other worker can take it now, the one that judged the first takes it.
    busy = testbed.claim(testbed.make_submission(alice.user, mode="test"), worker="cpu@other")
    assert not passes_on()
    testbed.finish(busy, report(1e-5), worker="cpu@other")
    assert passes_on()
    Worker.objects.filter(name="cpu@other").update(device_kinds="cpu.explore")  # serves another queue
    assert not passes_on()
    Worker.objects.filter(name="cpu@other").update(device_kinds="cpu")
    Worker.objects.filter(name="cpu@other").update(beat_at=timezone.now() - timedelta(minutes=5))
    assert not passes_on()  # its beat went stale
    worker_beat(name="cpu@other", device_kinds=["cpu"], started_at=timezone.now())
    worker_stopped(name="cpu@other")
    assert not passes_on()
    worker_beat(name="cpu@other", device_kinds=["cpu"], started_at=timezone.now())
    assert passes_on()
    settings.LEADERS_ANOTHER_WORKER_WAIT_S = 0.5  # past the wait: whoever takes it judges it
    Submission.objects.filter(pk=again.pk).update(created_at=timezone.now() - timedelta(seconds=1))
    assert not passes_on()

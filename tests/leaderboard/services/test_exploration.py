"""The exploration tier (mode explore): its own queue and quota, identical code judged once and shared,
never in the rankings (docs/platform.md, "The exploration tier")."""

import pytest
from django.utils import timezone
from testbed import claim, finish, make_submission, vectoradd_source

from leaderboard.errors import LimitReached, NoWorker
from leaderboard.problems.selectors import problem_get
from leaderboard.submissions.judging import submission_judge
from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.selectors import ranking_for_problem, submission_queue_position
from leaderboard.submissions.services import submission_create, worker_beat
from runner.spec import CaseResult, RunReport, Stats


def explore(persona, source=None, **overrides):
    return make_submission(persona.user, source=source or vectoradd_source(), mode="explore", **overrides)


def report(verdict="passed", *, mode="benchmark", secret=False, score_s=2e-5):
    """A judge's report on a candidate (no runner); `secret` adds a passed secret run, as a ranked run has."""
    stats = Stats(
        n=10, windows=2, mean=score_s, std=0.0, stderr=0.0, min=score_s, max=score_s, median=score_s
    )
    cases = [CaseResult(id="vectoradd[size=256]", kind="benchmark", status=verdict, stats=stats)]
    if secret:
        cases.append(CaseResult(id="vectoradd[size=256]", kind="secret", status=verdict, stats=stats))
    return RunReport(
        verdict=verdict,
        message="" if verdict == "passed" else f"it was {verdict}",
        problem="vectoradd",
        mode=mode,
        device="cpu",
        score_s=score_s if verdict == "passed" else None,
        cases=cases,
    )


def test_a_candidate_goes_to_its_kinds_exploration_queue(
    problems, alice, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        explore(alice)
    assert broker.client().llen("cpu.explore") == 1
    assert broker.client().llen("cpu") == 0  # never in the ranked line


def test_each_tier_has_its_own_quota(problems, alice, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT, settings.EXPLORE_MAX_IN_FLIGHT = 1, 3
    settings.SUBMISSION_MAX_PER_HOUR = settings.EXPLORE_MAX_PER_HOUR = 0
    # A worker serves both queues: queued submissions no worker can run would not count.
    worker_beat(name="cpu@test", device_kinds=["cpu", "cpu.explore"], started_at=timezone.now())
    for n in range(3):
        explore(alice, vectoradd_source(f"candidate {n}"))
    with pytest.raises(LimitReached) as refused:
        explore(alice, vectoradd_source("candidate 3"))
    assert "You have 3 exploration candidates queued or running" in refused.value.message
    make_submission(alice.user, mode="leaderboard")  # three candidates hold no ranked place
    with pytest.raises(LimitReached) as refused:
        make_submission(alice.user, mode="test", source=vectoradd_source("another"))
    assert "You have 1 submissions queued or running" in refused.value.message


def test_the_hourly_quota_of_candidates_is_its_own(problems, alice, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = settings.EXPLORE_MAX_IN_FLIGHT = 0
    settings.SUBMISSION_MAX_PER_HOUR, settings.EXPLORE_MAX_PER_HOUR = 1, 2
    explore(alice, vectoradd_source("a"))
    explore(alice, vectoradd_source("b"))
    with pytest.raises(LimitReached) as refused:
        explore(alice, vectoradd_source("c"))
    assert "2 exploration candidates in the last hour" in refused.value.message
    make_submission(alice.user, mode="leaderboard")


def test_a_candidate_needs_a_worker_of_the_exploration_queue(problems, alice, settings):
    settings.SUBMISSION_REFUSE_UNSERVED = True
    worker_beat(name="ranked-only@test", device_kinds=["cpu"], started_at=timezone.now())
    with pytest.raises(NoWorker) as refused:
        explore(alice)
    assert "No worker judges exploration candidates on the cpu device kind now" in refused.value.message
    make_submission(alice.user, mode="leaderboard")  # the ranked queue is served
    worker_beat(name="both@test", device_kinds=["cpu", "cpu.explore"], started_at=timezone.now())
    assert explore(alice).state == State.QUEUED


def test_identical_code_is_judged_once_and_shared(problems, alice, no_limits):
    first = finish(claim(explore(alice)), report())
    assert first.state == State.PASSED and first.shared_from is None
    second = explore(alice)  # the same text: no worker judges it again
    assert second.state == State.PASSED and second.shared_from_id == first.pk and second.is_final
    assert second.run.score_s == first.run.score_s == 2e-5
    assert [c.case_id for c in second.run.cases.all()] == ["vectoradd[size=256]"]
    assert f"Identical code was judged as #{first.pk}" in second.message
    assert second.run.pk != first.run.pk  # a copy: the author keeps it whatever becomes of the first
    fresh = make_submission(alice.user, mode="explore", source=vectoradd_source())
    assert fresh.shared_from_id == first.pk
    asked = submission_create(
        user=alice.user,
        problem="vectoradd",
        device_kind="cpu",
        mode="explore",
        language="pytorch",
        source=vectoradd_source(),
        reuse=False,
    )
    assert asked.state == State.QUEUED and asked.shared_from is None  # a fresh reading, when asked for


def test_another_authors_identical_code_is_judged_afresh(problems, alice, bob, no_limits, settings):
    """Only the author's own judgings are shared: another user's would say that someone judged this exact
    code in private (its id, when, on which worker), and whoever judges a common text last would choose
    the reading every other author's copies get."""
    first = finish(claim(explore(alice)), report(score_s=1e-9))  # alice's (lucky) reading
    benchmarked = finish(claim(make_submission(alice.user, mode="benchmark")), report(score_s=1e-9))
    assert explore(alice).shared_from_id == benchmarked.pk != first.pk  # her own: shared
    theirs = explore(bob)
    assert theirs.state == State.QUEUED and theirs.shared_from is None
    his = finish(claim(explore(bob)), report(score_s=2e-5))  # queued beside it: his own reading
    assert his.shared_from is None
    settings.RUNNER_EXECUTE = "instant_judge:explode"  # sharing must not reach the judge
    assert submission_judge(submission_id=theirs.pk, worker="cpu@test") == State.PASSED
    theirs.refresh_from_db()
    assert theirs.shared_from_id == his.pk and theirs.run.score_s == 2e-5  # bob's own twin, never alice's


def test_a_failure_is_shared_but_an_error_is_judged_afresh(problems, alice, no_limits):
    wrong = vectoradd_source("wrong")
    finish(claim(explore(alice, wrong)), report("failed"))
    assert explore(alice, wrong).state == State.FAILED
    crashed = vectoradd_source("crashed")
    finish(claim(explore(alice, crashed)), report("error"))
    assert explore(alice, crashed).state == State.QUEUED  # perhaps the machine's: judged again


def test_a_benchmark_run_is_shared_but_not_one_of_another_mode_or_kind(problems, alice, no_limits):
    benchmarked = vectoradd_source("benchmarked")
    finish(claim(make_submission(alice.user, mode="benchmark", source=benchmarked)), report())
    assert explore(alice, benchmarked).state == State.PASSED
    tested = vectoradd_source("tested")
    finish(claim(make_submission(alice.user, mode="test", source=tested)), report(mode="test"))
    assert explore(alice, tested).state == State.QUEUED  # untimed: nothing to share


def test_a_queued_twin_shares_the_run_when_a_worker_takes_it(problems, alice, no_limits, settings):
    settings.RUNNER_EXECUTE = "instant_judge:explode"  # sharing must not reach the judge
    first, twin = explore(alice), explore(alice)  # identical, both queued before either was judged
    assert twin.state == State.QUEUED
    finish(claim(first), report())
    assert submission_judge(submission_id=twin.pk, worker="cpu@test") == State.PASSED
    twin.refresh_from_db()
    assert twin.shared_from_id == first.pk and twin.run.score_s == first.run.score_s
    assert [a.reason for a in twin.attempt_history.all()] == [
        f"Shared the run of #{first.pk}, identical code."
    ]


def test_a_fresh_candidate_is_judged_even_when_identical_code_was_judged(
    problems, alice, no_limits, settings
):
    """`reuse` false is a confirming reading: the worker that claims it judges it, though identical code was
    judged before (or while it waited), rather than answering with a copy of that run."""
    settings.RUNNER_EXECUTE = "instant_judge:execute"  # scores 1e-5
    first = finish(claim(explore(alice)), report(score_s=1e-9))  # a lucky reading, say
    fresh = submission_create(
        user=alice.user,
        problem="vectoradd",
        device_kind="cpu",
        mode="explore",
        language="pytorch",
        source=vectoradd_source(),
        reuse=False,
    )
    assert fresh.state == State.QUEUED
    assert submission_judge(submission_id=fresh.pk, worker="cpu@test") == State.PASSED
    fresh.refresh_from_db()
    assert fresh.shared_from_id is None
    assert fresh.run.score_s == 1e-5 != first.run.score_s  # its own reading, not the lucky one's copy


def test_candidates_never_rank_nor_count_ahead_of_a_ranked_submission(problems, alice, bob, no_limits):
    # a candidate whose run says everything a ranked run says, secret run included: its mode keeps it out
    finish(claim(explore(alice, vectoradd_source("fast"))), report(secret=True, score_s=1e-9))
    ranked = finish(
        claim(make_submission(bob.user, mode="leaderboard")), report(mode="leaderboard", secret=True)
    )
    board = ranking_for_problem(problem=problem_get(name="vectoradd"), device_kind="cpu")
    assert [(e.username, e.submission_id) for e in board] == [("bob", ranked.pk)]
    for n in range(3):
        explore(alice, vectoradd_source(f"queued {n}"))
    waiting = make_submission(bob.user, mode="test")
    assert submission_queue_position(submission=waiting) == 1  # three candidates queued before it
    assert (
        submission_queue_position(
            submission=Submission.objects.filter(mode="explore", state="queued").order_by("id").first()
        )
        == 1
    )


def test_the_sweeper_resends_a_candidate_to_its_exploration_queue(problems, alice, broker):
    from leaderboard.submissions.services import submission_sweep

    candidate = explore(alice)
    Submission.objects.filter(pk=candidate.pk).update(enqueued_at=None)  # its send failed
    broker.client().flushall()
    assert submission_sweep().resent == 1
    assert broker.client().llen("cpu.explore") == 1 and broker.client().llen("cpu") == 0


def test_candidates_no_exploration_worker_serves_are_cancelled_in_time(problems, alice, settings):
    from datetime import timedelta

    from leaderboard.submissions.services import submission_end_unserved

    settings.SUBMISSION_UNSERVED_TIMEOUT_S = 60
    worker_beat(name="ranked-only@test", device_kinds=["cpu"], started_at=timezone.now())
    candidate, ranked = explore(alice), make_submission(alice.user, mode="test")
    long_ago = timezone.now() - timedelta(minutes=5)
    Submission.objects.filter(pk__in=[candidate.pk, ranked.pk]).update(created_at=long_ago)
    assert submission_end_unserved() == 1
    candidate.refresh_from_db(), ranked.refresh_from_db()
    assert candidate.state == State.CANCELLED
    assert "no worker has served the cpu device kind's exploration queue" in candidate.message
    assert ranked.state == State.QUEUED  # its queue is served


def test_a_shared_candidates_page_shows_its_run_to_its_author_only(client, problems, alice, bob, no_limits):
    first = finish(claim(explore(alice)), report())
    shared = explore(alice)
    client.force_login(alice.user)
    page = client.get(f"/submissions/{shared.pk}/")
    assert page.status_code == 200
    assert f"Identical code was judged as #{first.pk}" in page.content.decode()
    client.force_login(bob.user)
    assert client.get(f"/submissions/{shared.pk}/").status_code == 404  # kept for its author


def test_metrics_count_candidates_apart_from_the_ranked_queue(client, problems, alice, no_limits):
    explore(alice, vectoradd_source("one")), explore(alice, vectoradd_source("two"))
    make_submission(alice.user, mode="leaderboard")
    text = client.get("/metrics").content.decode()
    assert 'kernelboard_queue_depth{device_kind="cpu"} 1.0' in text
    assert 'kernelboard_explore_queue_depth{device_kind="cpu"} 2.0' in text


def test_a_candidate_is_timed_as_a_search_needs_and_a_ranked_run_in_full(settings):
    """Candidates get the exploration tier's short budget per case (the ranked entry is judged in full), or
    the runner's setting where that is shorter; every other mode keeps the runner's default."""
    from leaderboard.submissions.judging import _case_budget_s

    settings.RUNNER_CASE_BUDGET_S, settings.EXPLORE_CASE_BUDGET_S = None, 0.2
    assert _case_budget_s("explore") == 0.2
    assert _case_budget_s("leaderboard") is None and _case_budget_s("benchmark") is None
    settings.RUNNER_CASE_BUDGET_S = 0.05
    assert _case_budget_s("explore") == 0.05 and _case_budget_s("leaderboard") == 0.05

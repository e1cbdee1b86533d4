"""ranking_for_problem: the one place rankings are computed, with every eligibility filter."""

from leaderboard.problems.models import Problem, ProblemVersion
from leaderboard.submissions.models import Run
from leaderboard.submissions.selectors import ranking_for_problem


def ranking(device_kind="cpu"):
    return ranking_for_problem(problem=Problem.objects.get(name="vectoradd"), device_kind=device_kind)


def test_each_user_ranks_once_with_their_best_score(judged, alice, bob):
    judged(alice, score_s=3e-5)
    best = judged(alice, score_s=1e-5)
    judged(alice, score_s=2e-5)
    bob_entry = judged(bob, score_s=1.5e-5)
    entries = ranking()
    assert [(e.rank, e.username, e.score_s) for e in entries] == [(1, "alice", 1e-5), (2, "bob", 1.5e-5)]
    assert entries[0].submission_id == best.pk and entries[1].submission_id == bob_entry.pk


def test_a_tie_goes_to_the_earlier_submission(judged, alice, bob):
    first = judged(bob, score_s=2e-5)
    judged(alice, score_s=2e-5)
    entries = ranking()
    assert [e.username for e in entries] == ["bob", "alice"]
    assert entries[0].submission_id == first.pk


def test_a_users_tie_with_themself_keeps_their_earlier_submission(judged, alice):
    first = judged(alice, score_s=2e-5)
    judged(alice, score_s=2e-5)
    assert [e.submission_id for e in ranking()] == [first.pk]


def test_agents_and_people_share_the_table_marked(judged, alice, robo):
    judged(robo, score_s=1e-5)
    judged(alice, score_s=2e-5)
    assert [(e.username, e.is_agent) for e in ranking()] == [("robo", True), ("alice", False)]


def test_only_passed_leaderboard_runs_with_a_passed_secret_run_rank(judged, alice, bob, charlie, robo):
    judged(alice, score_s=1e-6, mode="benchmark", secret=None)  # not a ranked mode
    judged(alice, score_s=1e-6, mode="test", secret=None)
    judged(bob, score_s=1e-6, verdict="failed", secret="failed")  # the secret run failed
    judged(bob, score_s=1e-6, secret=None)  # no secret run at all
    judged(charlie, score_s=1e-6, verdict="flagged")  # faster than physics: flagged, not ranked
    judged(charlie, score_s=1e-6, verdict="failed", public="failed")
    judged(robo, score_s=None)  # passed, but no score
    assert ranking() == []
    judged(alice, score_s=5e-5)
    assert [e.username for e in ranking()] == ["alice"]


def test_a_run_flagged_after_the_fact_leaves_the_ranking(judged, alice, bob):
    judged(alice, score_s=1e-5)
    judged(bob, score_s=2e-5)
    Run.objects.filter(submission__user=alice.user).update(flagged=True)
    assert [e.username for e in ranking()] == ["bob"]


def test_rankings_are_per_device_kind(judged, alice, bob):
    judged(alice, score_s=1e-5, device_kind="h100")
    judged(bob, score_s=2e-5, device_kind="cpu")
    assert [e.username for e in ranking("h100")] == ["alice"]
    assert [e.username for e in ranking("cpu")] == ["bob"]
    assert ranking("a100") == []


def test_a_new_problem_version_starts_a_new_ranking(judged, alice, bob):
    judged(alice, score_s=1e-5)
    problem = Problem.objects.get(name="vectoradd")
    newer = ProblemVersion.objects.create(problem=problem, content_hash="feedfacefeedface", title="v2")
    problem.current_version = newer
    problem.save()
    assert ranking() == []  # the old version's scores do not mix into the new one
    judged(bob, score_s=9e-5)
    assert [(e.username, e.score_s) for e in ranking()] == [("bob", 9e-5)]


def test_the_ranking_is_one_query(judged, alice, bob, django_assert_num_queries):
    judged(alice, score_s=1e-5)
    judged(bob, score_s=2e-5)
    problem = Problem.objects.get(name="vectoradd")
    with django_assert_num_queries(1):
        assert len(ranking_for_problem(problem=problem, device_kind="cpu")) == 2


def test_the_eligible_submissions_across_device_kinds(judged, alice, bob):
    from leaderboard.submissions.selectors import ranking_eligible

    ranked = judged(alice, score_s=1e-5, device_kind="h100")
    other = judged(bob, score_s=2e-5)
    judged(bob, score_s=1e-6, verdict="failed", secret="failed")
    judged(bob, score_s=1e-6, mode="benchmark", secret=None)
    problem = Problem.objects.get(name="vectoradd")
    assert set(ranking_eligible(problem=problem).values_list("pk", flat=True)) == {ranked.pk, other.pk}
    assert list(ranking_eligible(problem=problem, device_kind="h100").values_list("pk", flat=True)) == [
        ranked.pk
    ]

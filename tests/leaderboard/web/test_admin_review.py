"""Staff's review page in the admin: flagged runs with their evidence, accept or reject, rejudge."""

from __future__ import annotations

from leaderboard.submissions.models import Run, State, Submission
from leaderboard.submissions.selectors import ranking_for_problem


def _ranked_users(problems) -> list[str]:
    from leaderboard.problems.models import Problem

    return [
        e.username
        for e in ranking_for_problem(problem=Problem.objects.get(name="vectoradd"), device_kind="cpu")
    ]


def test_the_review_list_shows_flagged_runs_first(as_user, staff, alice, bob, judged, floor_flag):
    flagged = judged(bob, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    passed = judged(alice, score_s=1e-3)
    html = as_user(staff).get("/admin/web/submissionreview/").content.decode()
    assert f"/admin/web/submissionreview/{flagged.pk}/change/" in html
    assert f"/admin/web/submissionreview/{passed.pk}/change/" not in html  # "All submissions" shows it
    assert (
        f"/admin/web/submissionreview/{passed.pk}/change/"
        in as_user(staff).get("/admin/web/submissionreview/?review=all").content.decode()
    )


def test_the_evidence_is_in_view(as_user, staff, bob, judged, floor_flag):
    flagged = judged(bob, score_s=1e-7, verdict="flagged", flags=[floor_flag], logs="printed by bob")
    html = as_user(staff).get(f"/admin/web/submissionreview/{flagged.pk}/change/").content.decode()
    assert "below the physical floor" in html and "floor_s" in html and "3.6e-06" in html
    assert "vectoradd[size=256]" in html and "flagged" in html  # the cases
    assert "writing into the buffer C" in html  # the source
    assert "printed by bob" in html  # the logs
    assert 'name="_accept"' in html and 'name="_reject"' in html and 'name="_rejudge"' in html


def test_accepting_a_flagged_run_ranks_it(as_user, staff, bob, judged, floor_flag, problems):
    flagged = judged(bob, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    assert _ranked_users(problems) == []
    response = as_user(staff).post(
        f"/admin/web/submissionreview/{flagged.pk}/change/",
        {"_accept": "1", "review_note": "Re-run on H100 agrees."},
    )
    assert response.status_code == 302
    flagged.refresh_from_db()
    assert (
        flagged.state == State.PASSED and "Accepted by staff" in flagged.message and "H100" in flagged.message
    )
    run = Run.objects.get(submission=flagged)
    assert run.verdict == "passed" and not run.flagged and run.flags == [floor_flag]  # the record stays
    assert _ranked_users(problems) == ["bob"]


def test_rejecting_a_flagged_run_keeps_it_out(as_user, staff, bob, judged, floor_flag, problems):
    flagged = judged(bob, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    as_user(staff).post(f"/admin/web/submissionreview/{flagged.pk}/change/", {"_reject": "1"})
    flagged.refresh_from_db()
    assert flagged.state == State.REJECTED and "Rejected by staff" in flagged.message
    assert _ranked_users(problems) == []
    # A second decision changes nothing, and says so.
    page = as_user(staff).post(
        f"/admin/web/submissionreview/{flagged.pk}/change/", {"_accept": "1"}, follow=True
    )
    assert "is not flagged (any more)" in page.content.decode()
    flagged.refresh_from_db()
    assert flagged.state == State.REJECTED


def test_rejudge_queues_it_again_from_scratch(as_user, staff, alice, judged):
    done = judged(alice, score_s=1e-3)
    response = as_user(staff).post(
        "/admin/web/submissionreview/?review=all",
        {"action": "rejudge", "_selected_action": [done.pk]},
    )
    assert response.status_code == 302
    done.refresh_from_db()
    assert done.state == State.QUEUED and done.attempts == 0 and "rejudge by staff" in done.message
    assert not Run.objects.filter(submission=done).exists()


def test_contestants_cannot_reach_the_review(as_user, alice, bob, judged, floor_flag):
    flagged = judged(bob, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    c = as_user(alice)
    assert c.get("/admin/web/submissionreview/").status_code == 302  # to the admin's log-in
    c.post(f"/admin/web/submissionreview/{flagged.pk}/change/", {"_accept": "1"})
    assert Submission.objects.get(pk=flagged.pk).state == State.FLAGGED

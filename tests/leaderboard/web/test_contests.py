"""Contests (leaderboard/contests): who ranks in one, the live board, the final board stored at the end and
untouched by what comes later, the wait for verdicts of submissions made before the end, and what the
problem, user and submission pages say. Runs are the services' (tests/leaderboard/web/conftest.py's `judged`); the
browser test with a real worker is test_browser_contest.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from leaderboard.contests.models import Contest, FinalEntry, Phase
from leaderboard.contests.services import contest_create, contest_freeze, contests_freeze_due
from leaderboard.errors import Refusal
from leaderboard.submissions.models import State, Submission


@pytest.fixture
def contest(problems):
    """A contest over vectoradd that started an hour ago and ends in an hour."""
    now = timezone.now()
    return contest_create(
        name="sprint",
        title="Vector sprint",
        problems=[_vectoradd()],
        starts_at=now - timedelta(hours=1),
        ends_at=now + timedelta(hours=1),
    )


def _vectoradd():
    from leaderboard.problems.selectors import problem_get

    return problem_get(name="vectoradd")


def _made_at(submission, when):
    Submission.objects.filter(pk=submission.pk).update(created_at=when)
    submission.refresh_from_db()
    return submission


def _end(contest, *, ago=timedelta(0)):
    Contest.objects.filter(pk=contest.pk).update(ends_at=timezone.now() - ago)
    contest.refresh_from_db()


def _board(html: str) -> str:
    return html[html.index('id="contest-board"') : html.index("</section>", html.index('id="contest-board"'))]


def _users(section: str) -> list[str]:
    import re

    return re.findall(r'<tr data-user="([^"]+)"', section)


def test_the_live_board_ranks_what_was_made_in_the_contest(client, contest, alice, bob, staff, judged):
    _made_at(judged(staff, score_s=1e-6), contest.starts_at - timedelta(minutes=1))  # before: not in it
    judged(alice, score_s=2e-3)
    judged(bob, score_s=1e-3)
    judged(bob, score_s=5e-3)  # bob's worse one does not count
    judged(alice, score_s=1e-4, mode="benchmark")  # not leaderboard mode
    html = client.get("/contests/sprint/").content.decode()
    assert contest.phase(timezone.now()) == Phase.RUNNING
    assert 'data-phase="running"' in html and "Ends in" in html and "data-until=" in html
    assert _users(_board(html)) == ["bob", "alice"]
    assert "After the contest" not in html
    assert not FinalEntry.objects.exists()


def test_the_final_board_is_stored_and_later_submissions_do_not_change_it(
    client, contest, alice, bob, staff, judged
):
    alice_in = judged(alice, score_s=2e-3)
    bob_in = judged(bob, score_s=1e-3)
    _end(contest)
    html = client.get("/contests/sprint/").content.decode()
    contest.refresh_from_db()
    assert 'id="after-contest"' not in html  # nothing made after the end yet
    assert contest.frozen_at is not None and 'data-phase="final"' in html and "Final standings" in html
    assert list(FinalEntry.objects.values_list("username", "rank", "submission_id")) == [
        ("bob", 1, bob_in.pk),
        ("alice", 2, alice_in.pk),
    ]
    # After the end: better runs by alice and by a newcomer; bob's account closed. The board stays.
    alice_after = judged(alice, score_s=1e-5)
    judged(staff, score_s=1e-6)
    bob.is_active = False
    bob.save()
    html = client.get("/contests/sprint/").content.decode()
    assert _users(_board(html)) == ["bob", "alice"]
    after = html[html.index('id="after-contest"') :]
    assert _users(after) == ["staff", "alice"] and f"#{alice_after.pk}" in after
    assert "#</th>" not in after  # shown without a place
    assert FinalEntry.objects.count() == 2
    assert not contest_freeze(contest=contest)  # a second freeze stores nothing


def test_a_tie_within_the_noise_is_stored_as_the_board_showed_it(client, contest, alice, bob, judged):
    judged(alice, score_s=1.00e-3, spread=0.05)
    judged(bob, score_s=1.02e-3, spread=0.05)  # the intervals overlap: one place, shared
    live = client.get("/contests/sprint/").content.decode()
    assert live.count('class="tie"') == 2 and "1=" in live
    _end(contest)
    final = client.get("/contests/sprint/").content.decode()
    assert list(FinalEntry.objects.values_list("username", "rank", "tied_with")) == [
        ("alice", 1, ["bob"]),
        ("bob", 1, ["alice"]),
    ]
    assert final.count('class="tie"') == 2 and "95 % interval" in final
    entry = FinalEntry.objects.get(username="alice")
    assert entry.score_low_s < 1e-3 < entry.score_high_s


def test_the_board_waits_for_verdicts_of_submissions_made_before_the_end(
    client, contest, alice, bob, judged, submit
):
    judged(bob, score_s=1e-3)
    waiting = submit(alice, mode="leaderboard")  # queued at the end
    submit(alice, mode="test")  # a test run does not hold the board
    _end(contest)
    html = client.get("/contests/sprint/").content.decode()
    assert 'data-phase="judging"' in html and "1 submission made before the end is still being judged" in html
    assert Contest.objects.get(pk=contest.pk).frozen_at is None
    Submission.objects.filter(pk=waiting.pk).update(state=State.ERROR)  # its verdict arrives
    assert [c.name for c in contests_freeze_due()] == ["sprint"]
    assert list(FinalEntry.objects.values_list("username", flat=True)) == ["bob"]


def test_a_contest_over_two_problems_has_a_board_for_each(client, problems, alice, judged):
    from leaderboard.problems.selectors import problem_get

    now = timezone.now()
    contest_create(
        name="double",
        title="Double",
        problems=[_vectoradd(), problem_get(name="matmul")],
        starts_at=now - timedelta(hours=1),
        ends_at=now + timedelta(hours=1),
    )
    judged(alice, score_s=2e-3)
    html = client.get("/contests/double/").content.decode()
    board = _board(html)
    assert 'href="/problems/vectoradd/"' in board and 'href="/problems/matmul/"' in board
    assert 'data-problem="vectoradd"' in board and 'data-problem="matmul"' not in board
    assert "No ranked entries yet" in board  # matmul's
    assert "Double" in client.get("/problems/matmul/").content.decode()


def test_the_judging_grace_ends_the_wait(contest, alice, submit):
    submit(alice, mode="leaderboard")
    _end(contest)
    assert not contest_freeze(contest=contest)
    assert contest_freeze(contest=contest, now=contest.grace_ends_at + timedelta(seconds=1))
    assert not FinalEntry.objects.exists()


def test_the_problem_page_shows_the_time_left(client, contest, problems):
    html = client.get("/problems/vectoradd/").content.decode()
    banner = html[html.index('id="problem-contests"') :]
    assert "Vector sprint" in banner and "ends in" in banner
    assert f'data-until="{contest.ends_at.isoformat()}"' in banner
    assert "contests/contests.js" in html
    Contest.objects.filter(pk=contest.pk).update(
        starts_at=timezone.now() + timedelta(hours=2), ends_at=timezone.now() + timedelta(hours=3)
    )
    html = client.get("/problems/vectoradd/").content.decode()
    assert "starts in" in html[html.index('id="problem-contests"') :]
    assert "The board opens when the contest starts" in client.get("/contests/sprint/").content.decode()


def test_a_problem_without_contests_says_nothing_of_them(client, problems):
    assert 'id="problem-contests"' not in client.get("/problems/vectoradd/").content.decode()


def test_the_user_page_shows_the_contest_history(client, contest, alice, bob, judged, submit):
    judged(bob, score_s=1e-3)
    judged(alice, score_s=2e-3)
    html = client.get("/users/alice/").content.decode()
    history = html[html.index('id="contests"') : html.index("<h2>Submissions")]
    assert "Vector sprint" in history and '2 <span class="muted">of 2</span>' in history and "live" in history
    _end(contest)
    contest_freeze(contest=contest)
    history = client.get("/users/alice/").content.decode()
    assert "final" in history[history.index('id="contests"') : history.index("<h2>Submissions")]


def test_a_user_who_took_part_without_a_ranked_entry(client, contest, alice, bob, judged):
    judged(alice, score_s=2e-3, verdict="failed")
    judged(bob, score_s=1e-3, mode="test")  # not leaderboard mode: not taking part
    html = client.get("/users/alice/").content.decode()
    assert "Vector sprint" in html and "took part; no ranked entry" in html
    assert 'id="contests"' not in client.get("/users/bob/").content.decode()


def test_the_submission_page_says_whether_it_ranks_in_the_contest(client, contest, alice, judged):
    during = judged(alice, score_s=2e-3)
    _end(contest)
    after = judged(alice, score_s=1e-3)
    assert "Made during the contest" in client.get(f"/submissions/{during.pk}/").content.decode()
    html = client.get(f"/submissions/{after.pk}/").content.decode()
    assert "Made after the contest" in html and "not ranked in the contest" in html


def test_concurrent_freezes_on_postgres_store_one_board(transactional_db, contest, alice, bob, judged):
    import threading

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the race is PostgreSQL's row locks; PostgreSQL did not answer")
    judged(alice, score_s=2e-3)
    judged(bob, score_s=1e-3)
    _end(contest)
    start, froze = threading.Barrier(6), []

    def freeze():
        start.wait()
        try:
            froze.append(contest_freeze(contest=Contest.objects.get(pk=contest.pk)))
        finally:
            connection.close()

    threads = [threading.Thread(target=freeze) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(froze) == [False] * 5 + [True]
    assert list(FinalEntry.objects.values_list("username", "rank")) == [("bob", 1), ("alice", 2)]


def test_the_contest_list(client, contest):
    html = client.get("/contests/").content.decode()
    assert 'data-contest="sprint"' in html and "live" in html
    assert client.get("/contests/nothing/").status_code == 404


def test_staff_create_a_contest_in_the_admin(as_user, staff, problems):
    admin = as_user(staff)
    form = {
        "name": "autumn",
        "title": "Autumn cup",
        "description": "",
        "problems": [_vectoradd().pk],
        "starts_at_0": "2026-10-01",
        "starts_at_1": "12:00:00",
        "ends_at_0": "2026-09-01",
        "ends_at_1": "12:00:00",
        "judging_grace": "01:00:00",
        "final_entries-TOTAL_FORMS": "0",
        "final_entries-INITIAL_FORMS": "0",
    }
    refused = admin.post("/admin/contests/contest/add/", form)
    assert refused.status_code == 200 and "A contest must end after it starts." in refused.content.decode()
    form["ends_at_0"] = "2026-10-08"
    assert admin.post("/admin/contests/contest/add/", form).status_code == 302
    autumn = Contest.objects.get(name="autumn")
    assert list(autumn.problems.values_list("name", flat=True)) == ["vectoradd"]
    assert autumn.ends_at - autumn.starts_at == timedelta(days=7)


def test_compute_again_drops_the_stored_board(as_user, staff, contest, alice, judged):
    judged(alice, score_s=2e-3)
    _end(contest)
    contest_freeze(contest=contest)
    listed = as_user(staff).get("/admin/contests/contest/").content.decode()
    assert "sprint" in listed and ">final<" in listed
    change = as_user(staff).get(f"/admin/contests/contest/{contest.pk}/change/").content.decode()
    assert "alice" in change and "Final entries" in change
    response = as_user(staff).post(
        "/admin/contests/contest/", {"action": "compute_again", "_selected_action": [contest.pk]}
    )
    assert response.status_code == 302
    assert Contest.objects.get(pk=contest.pk).frozen_at is None and not FinalEntry.objects.exists()


def test_the_commands(problems, capsys):
    call_command("create_contest", "winter", "--problem", "vectoradd", "--start", "+1h", "--end", "+3h")
    winter = Contest.objects.get(name="winter")
    assert winter.ends_at - winter.starts_at == timedelta(hours=2)
    assert "/contests/winter/" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no problem called 'nope'"):
        call_command("create_contest", "x", "--problem", "nope", "--end", "+1h")
    with pytest.raises(CommandError, match="before it starts"):
        call_command("create_contest", "x", "--problem", "vectoradd", "--start", "+2h", "--end", "+1h")
    Contest.objects.filter(pk=winter.pk).update(starts_at=timezone.now() - timedelta(hours=2))
    Contest.objects.filter(pk=winter.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    call_command("freeze_contests")
    assert "froze winter" in capsys.readouterr().out


def test_a_contest_needs_a_problem_and_a_free_name(problems, contest):
    now = timezone.now()
    with pytest.raises(Refusal, match="at least one problem"):
        contest_create(name="a", title="a", problems=[], starts_at=now, ends_at=now + timedelta(hours=1))
    with pytest.raises(Refusal, match="already a contest"):
        contest_create(
            name="sprint", title="a", problems=[_vectoradd()], starts_at=now, ends_at=now + timedelta(1)
        )


def test_the_api_lists_contests_and_gives_each_board(client, contest, alice, bob, judged):
    judged(alice, score_s=2e-3)
    bob_in = judged(bob, score_s=1e-3)
    listed = client.get("/api/contests").json()
    assert [(c["name"], c["phase"], c["problems"]) for c in listed] == [("sprint", "running", ["vectoradd"])]
    board = client.get("/api/contests/sprint").json()
    assert board["phase"] == "running" and board["frozen_at"] is None and board["pending"] == 0
    [cpu] = board["boards"]
    assert (cpu["problem"], cpu["device"]) == ("vectoradd", "cpu")
    assert [(e["user"], e["rank"]) for e in cpu["entries"]] == [("bob", 1), ("alice", 2)]
    _end(contest)
    judged(alice, score_s=1e-5)
    final = client.get("/api/contests/sprint").json()
    assert final["phase"] == "final" and final["frozen_at"]
    assert final["boards"][0]["entries"][0]["submission_id"] == bob_in.pk
    assert [e["user"] for e in final["after"][0]["entries"]] == ["alice"]
    missing = client.get("/api/contests/nothing")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert "/api/contests/{name}" in client.get("/api/openapi.json").json()["paths"]


def test_the_sweepers_round_stores_a_due_final_board(contest, alice, judged):
    """No one need read the page after the end: the sweeper's round (manage.py sweep, serve) freezes it."""
    from leaderboard.submissions.sweeper import Sweeper

    judged(alice, score_s=1e-3)
    _end(contest)
    said = []
    assert Sweeper(say=said.append).round() is not None
    assert Contest.objects.get(pk=contest.pk).frozen_at is not None
    assert list(FinalEntry.objects.values_list("username", flat=True)) == ["alice"]
    assert "sweeper: contest sprint ended and its final standings are stored" in said


def test_the_final_board_waits_for_a_leaders_second_judging(contest, alice, bob, judged, settings):
    """A leader's first run is final but held back until judged again: the board must not freeze
    without it (the second judging is made after the end, so it is not in the window itself)."""
    from leaderboard.submissions.services import submission_claim, submission_finish

    judged(bob, score_s=2e-3)
    settings.LEADERS_JUDGED_AGAIN = 3
    first = judged(alice, score_s=1e-3)
    assert first.confirmation == "pending"
    _end(contest)
    assert contests_freeze_due() == []  # still waiting on alice's second judging
    again = first.confirmations.get()
    claimed = submission_claim(submission_id=again.pk, worker="cpu@test")
    report = first.run.report
    from runner.spec import RunReport

    submission_finish(
        submission_id=again.pk,
        worker="cpu@test",
        attempt=claimed.attempts,
        report=RunReport.from_dict(report),
        started_at=claimed.started_at,
    )
    assert [c.name for c in contests_freeze_due()] == ["sprint"]
    assert list(FinalEntry.objects.order_by("rank").values_list("username", flat=True)) == ["alice", "bob"]

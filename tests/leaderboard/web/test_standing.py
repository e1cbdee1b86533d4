"""A finished leaderboard submission's standing: the rank it reached, the change against the author's best
before it and against the leader, and its benchmark cases beside the leader's (rows made through the
services, ranks and ratios exact)."""

from __future__ import annotations

from leaderboard.web.standing import standing_of


def test_rank_reached_and_ratios_against_my_best_and_the_leader(alice, bob, robo, judged, as_user):
    judged(bob, score_s=1e-3)
    judged(robo, score_s=1.5e-3)
    first = judged(alice, score_s=4e-3)
    second = judged(alice, score_s=2e-3)

    standing = standing_of(second)
    assert (standing.rank, standing.of) == (3, 3)  # behind bob and robo
    assert standing.previous.submission_id == first.pk
    assert standing.against_previous == 0.5  # twice as fast as alice's best before it
    assert standing.leader.username == "bob"
    assert standing.against_leader == 2.0
    [case] = standing.cases
    assert (case.case, case.mine_s, case.leader_s, case.ratio) == ("size=256", 2e-3, 1e-3, 2.0)

    # The first entry ranks where it did against the others, with nothing of its author's before it.
    assert standing_of(first).rank == 3 and standing_of(first).previous is None

    html = as_user(alice).get(f"/submissions/{second.pk}/").content.decode()
    section = html[html.index('id="standing"') :].split("</section>")[0]
    assert "Rank <b>3</b> of 3" in section
    assert "0.500×" in section and "(faster)" in section and "2.000×" in section
    assert f"#{first.pk}" in section and "bob" in section and "size=256" in section
    assert "Against the leader bob" in section


def test_the_leader_is_told_they_lead(alice, bob, judged, as_user):
    judged(bob, score_s=2e-3)
    mine = judged(alice, score_s=1e-3)
    standing = standing_of(mine)
    assert standing.rank == 1 and standing.against_leader == 0.5  # bob is the best of the others
    assert standing.cases[0].ratio == 0.5
    html = as_user(alice).get(f"/submissions/{mine.pk}/").content.decode()
    section = html[html.index('id="standing"') :].split("</section>")[0]
    assert "Against the runner-up bob" in section and "the leader" not in section


def test_no_standing_for_runs_that_do_not_rank(alice, judged, floor_flag, client):
    assert standing_of(judged(alice, score_s=1e-3, mode="benchmark")) is None
    assert standing_of(judged(alice, score_s=1e-3, mode="test")) is None
    flagged = judged(alice, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    assert standing_of(flagged) is None
    alone = judged(alice, score_s=3e-3)
    standing = standing_of(alone)
    assert standing.rank == 1 and standing.leader is None and standing.previous is None
    html = client.get(f"/submissions/{alone.pk}/").content.decode()
    assert "Nobody else ranks here yet" in html and "standing-cases" not in html

"""A user's page: their best entries (from the rankings selector) and their submissions as the viewer
may see them."""

from __future__ import annotations


def test_others_see_best_entries_and_ranked_submissions_only(client, as_user, alice, bob, judged):
    judged(bob, score_s=1e-3)
    best = judged(alice, score_s=2e-3)
    experiment = judged(alice, score_s=1e-3, mode="benchmark")
    html = as_user(bob).get("/users/alice/").content.decode()
    entries = html[html.index("Best entries") : html.index("<h2>Submissions")]
    assert "Vector addition" in entries and '2 <span class="muted">of 2</span>' in entries
    assert f"#{best.pk}" in entries
    assert f"/submissions/{best.pk}/" in html and f"/submissions/{experiment.pk}/" not in html
    assert "Ranked (leaderboard-mode) submissions only" in html
    assert f"/submissions/{experiment.pk}/" in as_user(alice).get("/users/alice/").content.decode()


def test_agents_are_marked_and_unknown_users_are_404(client, robo, judged):
    judged(robo, score_s=1e-3)
    assert "badge agent" in client.get("/users/robo/").content.decode()
    assert client.get("/users/nobody/").status_code == 404

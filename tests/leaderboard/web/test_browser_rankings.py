"""The rankings as a browser shows them (issue 30): each score with its 95 % interval, entries whose
intervals overlap shown tied (a shared rank, the reason on hover), and the score's definition one click
away. Runs are made through the services with reports of the test's choosing (tests/leaderboard/web/conftest.py's
`judged`); the page is Django's live server in Debian's Chromium."""

import tempfile

import pytest

from tests.leaderboard.web.browser import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")


def test_rankings_show_intervals_and_a_tie_and_link_the_definition(live_server, alice, bob, robo, judged):
    sync_api = pytest.importorskip("playwright.sync_api")
    judged(alice, score_s=1.00e-3, spread=0.03)
    judged(bob, score_s=1.02e-3, spread=0.03)  # within alice's interval: tied
    judged(robo, score_s=2.00e-3, spread=0.03)  # slower beyond doubt
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="kb-chromium-"),
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
            headless=True,
        )
        page = context.new_page()
        page.goto(f"{live_server.url}/problems/vectoradd/?tab=rankings&device=cpu")
        rows = page.locator("table.ranking tbody tr")
        assert rows.count() == 3
        cells = [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()[:3]] for i in range(3)]
        assert [c[0] for c in cells] == ["1=", "1=", "3"]
        assert [c[1].split()[0] for c in cells] == ["alice", "bob", "robo"]
        assert cells[0][2].splitlines() == ["1 ms", "970 us to 1.03 ms"]  # the score, then its interval
        tie = rows.nth(0).locator(".tie")
        assert tie.get_attribute("title") == "tied with bob: their 95 % intervals overlap"
        page.get_by_role("link", name="Score", exact=True).click()
        page.wait_for_url("**/scoring/")
        assert "How a score is made" in page.locator("h1").inner_text()
        assert "share a rank" in page.content()
        context.close()

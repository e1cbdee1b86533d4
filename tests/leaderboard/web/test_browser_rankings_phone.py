"""The rankings on a 390 px phone, in a real browser (issue 31): each row's submission link is in view with no
sideways scroll, a long name wraps, and the language and date, which give way there, are back on a wide
screen. The ranked runs are stored through the services (as test_browser.py's flagged run is) on a device kind
no worker of the test's platform serves, so that no worker judges them again."""

from __future__ import annotations

from tests.leaderboard.web.browser import MARKS, PHONE, fits, shot

pytestmark = MARKS

RANKED = """
from leaderboard.accounts.services import user_get_or_create
from leaderboard.submissions.services import submission_claim, submission_create, submission_finish
from runner.spec import CaseResult, RunReport, Stats

source = open("problems/vectoradd/templates/pytorch.py").read()
for i, name in enumerate(["kernel_artist_with_a_rather_long_name_42", "bo"]):
    user, _ = user_get_or_create(username=name)
    s = submission_create(user=user, problem="vectoradd", device_kind="h100", mode="leaderboard",
                          language="pytorch", source=source + f"# {name}\\n", judged_here=True)
    claimed = submission_claim(submission_id=s.pk, worker="h100@phone-test")
    mean = 2.5e-6 * (i + 1)
    stats = Stats(n=2000, windows=20, mean=mean, std=mean / 50, stderr=mean / 500, min=mean * 0.98,
                  max=mean * 1.03)
    cases = [CaseResult(id="vectoradd[size=1024]", kind="test", status="passed")] + [
        CaseResult(id="vectoradd[size=1024]", kind=kind, status="passed", stats=stats, floor_s=9.4e-7)
        for kind in ("benchmark", "secret")]
    report = RunReport(verdict="passed", message="", problem="vectoradd", mode="leaderboard", device="cuda",
                       score_s=mean, cases=cases, env={"device": "NVIDIA H100 80GB HBM3", "device_kind": "h100"})
    submission_finish(submission_id=s.pk, worker="h100@phone-test", attempt=claimed.attempts, report=report,
                      started_at=claimed.started_at)
"""


def test_the_rankings_submission_links_need_no_sideways_scroll_on_a_phone(platform, browser_page):
    page, base = browser_page, platform.url
    from playwright.sync_api import expect

    platform.manage("shell", "-c", RANKED)
    rankings = base + "/problems/vectoradd/?tab=rankings&device=h100"

    page.set_viewport_size(PHONE)
    page.goto(rankings)
    links = page.locator('table.ranking[data-device="h100"] a.submission-link')
    expect(links).to_have_count(2)
    fits(page)
    width = page.evaluate("window.innerWidth")
    for i in range(2):
        box = links.nth(i).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (i, box, width)
    wrap = page.evaluate(
        "(() => { const w = document.querySelector('table.ranking').closest('.table-wrap');"
        " return [w.scrollWidth, w.clientWidth]; })()"
    )
    assert wrap[0] <= wrap[1], f"the rankings scroll sideways in their box: {wrap}"
    expect(page.locator("table.ranking th", has_text="Language")).to_be_hidden()
    shot(page, "40-phone-rankings")

    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(rankings)
    expect(page.locator("table.ranking th", has_text="Language")).to_be_visible()

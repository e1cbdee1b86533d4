"""The pages in a real browser (Debian's Chromium, driven by Playwright) against a real platform:
`manage.py serve` on a free port (gunicorn, a Celery worker on the filesystem broker, the sweeper, SQLite),
judging with the real runner in its sandbox.

A visitor signs up, uploads the vectoradd template through the submit form in test mode on cpu, watches
the page update itself until `passed`, submits it again in leaderboard mode (the mode that ranks) and
finds the entry in the rankings; then staff open a flagged run and accept it in the admin. Every page is
saved as a screenshot under test-artifacts/browser/.

The flagged run is the one thing not judged here: a time below the physical floor needs a GPU, so it is
stored through the services with a report standing in for an H100 run (no worker serves that queue).
"""

from __future__ import annotations

from tests.leaderboard.web.browser import MARKS, PHONE, fits, shot, sign_up, submit_template, wait_until_final

pytestmark = MARKS

# Stored through the services as a stand-in for an H100 run timed below its floor (see the docstring).
FLAGGED_RUN = """
from leaderboard.accounts.services import user_get_or_create
from leaderboard.submissions.services import submission_claim, submission_create, submission_finish
from runner.spec import CaseResult, RunReport, Stats

robo, _ = user_get_or_create(username="robo", is_agent=True)
source = open("problems/vectoradd/templates/pytorch.py").read() + "\\n# robo's candidate\\n"
s = submission_create(user=robo, problem="vectoradd", device_kind="h100", mode="leaderboard",
                      language="pytorch", source=source, judged_here=True)  # no h100 worker: judged here
claimed = submission_claim(submission_id=s.pk, worker="h100@browser-test")
stats = Stats(n=2000, windows=20, mean=4e-7, std=1e-8, stderr=2e-9, min=3.9e-7, max=4.2e-7,
              flops_per_s=1.0e9 / 4e-7 * 1e-3, bytes_per_s=6.0e6 / 4e-7 * 1e-3)
cases = [CaseResult(id="vectoradd[size=1024]", kind=kind, status=status, stats=stats, floor_s=9.4e-7)
         for kind, status in (("benchmark", "passed"), ("secret", "flagged"))]
flag = {"kind": "floor", "message": "vectoradd[size=1024]: 4e-07 s per call is below the physical floor of "
        "9.4e-07 s on h100", "evidence": {"case": "vectoradd[size=1024]", "mean_s": 4e-07, "floor_s": 9.4e-07}}
report = RunReport(verdict="flagged", message=flag["message"], problem="vectoradd", mode="leaderboard",
                   device="cuda", score_s=4e-7, cases=cases, flags=[flag],
                   env={"device": "NVIDIA H100 80GB HBM3", "device_kind": "h100"})
submission_finish(submission_id=s.pk, worker="h100@browser-test", attempt=claimed.attempts, report=report,
                  started_at=claimed.started_at)
print(s.pk)
"""


def test_sign_up_submit_watch_rank_and_review(platform, browser_page):
    page, base = browser_page, platform.url
    from playwright.sync_api import expect

    page.goto(base + "/")
    expect(page.locator("h1")).to_have_text("Problems")
    shot(page, "01-problems")

    # Sign up: the new user is logged in.
    page.click("text=Sign up")
    page.fill("#id_username", "alice")
    page.fill("#id_password1", "vector-adds-are-fast-1")
    page.fill("#id_password2", "vector-adds-are-fast-1")
    page.click("form button[type=submit]")
    expect(page.locator("header.site")).to_contain_text("alice")

    page.goto(base + "/problems/vectoradd/")
    page.click("nav[aria-label=Problem] >> text=Statement")
    expect(page.locator("#statement")).to_contain_text("custom_kernel(data)")
    shot(page, "02-problem")

    # Test mode on cpu, uploaded through the form; the page follows it to its verdict by itself.
    submit_template(page, base, "test")
    expect(page.locator("#live")).to_be_visible()
    shot(page, "04-submission-in-flight")
    assert wait_until_final(page, platform, 150) == "passed", platform.logs()
    expect(page.locator("table.cases tbody tr.case-passed")).to_have_count(4)
    expect(page.locator("#source")).to_contain_text("torch.add(A, B, out=C)")
    shot(page, "05-submission-passed")

    # Leaderboard mode is what ranks.
    submit_template(page, base, "leaderboard")
    assert wait_until_final(page, platform, 170) == "passed", platform.logs()
    expect(page.locator("table.cases")).to_contain_text("secret")
    expect(page.locator("figure.plot svg")).to_contain_text("time per call (log scale)")
    ranked_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    shot(page, "06-submission-leaderboard")

    page.goto(base + "/problems/vectoradd/")
    ranking = page.locator('table.ranking[data-device="cpu"]')
    expect(ranking.locator("tbody tr")).to_have_count(1)
    expect(ranking.locator("tbody tr").first).to_contain_text("alice")
    expect(ranking.locator("tbody tr").first).to_contain_text(f"#{ranked_id}")
    expect(page.locator("#history + figure svg")).to_contain_text("Best score over time")
    shot(page, "07-rankings")

    page.goto(base + "/users/alice/")
    expect(page.locator("body")).to_contain_text("1 of 1")
    shot(page, "08-user")

    page.goto(base + "/account/tokens/")
    page.fill("#id_name", "laptop")
    page.click("text=Make a new token")
    expect(page.locator("#new-token")).to_contain_text("kb_")
    shot(page, "09-token")
    page.click("header.site form button")  # log out

    # Staff review a flagged run (stored as a stand-in for a GPU run, see the docstring).
    flagged_id = platform.manage("shell", "-c", FLAGGED_RUN).strip().splitlines()[-1]
    platform.manage("createsuperuser", "--noinput", "--username", "staff", "--email", "staff@example.com")
    page.goto(f"{base}/login/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", "staff-password-1234")
    page.click("form button[type=submit]")
    page.goto(f"{base}/submissions/{flagged_id}/")
    expect(page.locator("#state-badge")).to_have_text("flagged")
    expect(page.locator("#flags")).to_contain_text("below the physical floor")
    shot(page, "10-flagged-run")
    page.click("text=Review in the admin")
    expect(page.locator("#content")).to_contain_text("floor_s")
    expect(page.locator("#content")).to_contain_text("robo's candidate")  # the source, in view
    shot(page, "11-admin-review")
    page.fill("#review_note", "Checked against the H100 trace.")
    page.click("input[name=_accept]")
    expect(page.locator(".messagelist")).to_contain_text("1 submission(s) accepted")

    page.goto(base + "/problems/vectoradd/")
    page.click("[data-device-tab=h100]")  # the rankings' tab of that device kind
    h100 = page.locator('table.ranking[data-device="h100"] tbody tr').first
    expect(h100).to_contain_text("robo")
    expect(h100.locator(".badge.agent")).to_be_visible()
    shot(page, "12-rankings-after-review")


# An agent run of three steps stored through the services (as tests/agentruns/test_pages.py does), for its page.
AGENT_RUN = """
import tempfile
from agents.archive import Archive, Child
from agents.loop import StepRecord
from leaderboard.agentruns.services import agent_run_create, agent_run_record_step

run = agent_run_create(problem="vectoradd", device_kind="cpu", policy="offline", variant="ttt-discover",
                       steps=3, groups=1, rollouts=2, seed=0, out_dir=tempfile.mkdtemp())
archive = Archive()
archive.add_seed("def custom_kernel(data):\\n    return 'seed'\\n", 1.0, 0.002, {"template": "reference design"})
for step in range(3):
    parent = archive.best()
    code = f"def custom_kernel(data):\\n    return {step}  # a much longer line than a phone's width, to scroll\\n"
    archive.update(parent.id, [Child(code=code, reward=1.5 + step, runtime_s=0.002 / (1.5 + step), passed=True,
                                     meta={"design": {"rows": 64 * step, "block_size_with_a_long_name": 1024}})],
                   step=step)
    best = archive.best()
    record = StepRecord(step=step, starts=[parent.id], rewards=[[1.5 + step, 0.0]], mean_reward=(1.5 + step) / 2,
                        max_reward=1.5 + step, passed=1, candidates=2, best_reward=best.reward,
                        best_runtime_s=best.runtime_s, best_state=best.id)
    agent_run_record_step(run=run, record=record, archive=archive, reference_s=0.002)
print(run.pk)
"""


def _background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_phone_width_dark_mode_error_page_and_csp(platform, browser_page):
    """Every page fits a 390 px phone (tables scroll inside their box), dark mode follows the browser and
    the toggle (remembered), an error page keeps the site's navigation, and the API docs work under the
    Content-Security-Policy (browser_page fails a test on any violation the browser reports)."""
    page, base = browser_page, platform.url
    from playwright.sync_api import expect

    sign_up(page, base, "carol")
    flagged_id = platform.manage("shell", "-c", FLAGGED_RUN).strip().splitlines()[-1]  # a run with cases
    agent_run_id = platform.manage("shell", "-c", AGENT_RUN).strip().splitlines()[-1]

    # A 390 px phone: no page is wider than the screen.
    page.set_viewport_size(PHONE)
    for name, path in [
        ("home", "/"),
        ("problem", "/problems/vectoradd/"),
        ("submit", "/submit/?problem=vectoradd&template=pytorch.py"),
        ("user", "/users/carol/"),
        ("submission", f"/submissions/{flagged_id}/"),
        ("agent-user", "/users/robo/"),
        ("agents", "/agents/"),
        ("agent-run", f"/agents/runs/{agent_run_id}/"),
    ]:
        page.goto(base + path)
        fits(page)
        shot(page, f"20-phone-{name}")

    # An error page: the site's layout and navigation, the status kept.
    response = page.goto(base + "/no-such-page/")
    assert response.status == 404
    expect(page.locator("#error")).to_contain_text("There is no page at /no-such-page/")
    expect(page.locator("header.site nav")).to_contain_text("Problems")
    fits(page)
    shot(page, "21-phone-error-404")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Dark mode follows the browser's preference ...
    light, dark = "rgb(248, 250, 252)", "rgb(11, 17, 32)"
    page.emulate_media(color_scheme="dark")
    page.goto(base + "/problems/vectoradd/")
    assert _background(page) == dark
    shot(page, "22-dark-problem")
    page.goto(f"{base}/submissions/{flagged_id}/")
    assert _background(page) == dark
    shot(page, "23-dark-submission")
    # ... until the toggle chooses, and the choice is remembered over the preference.
    page.click("#theme-toggle")
    assert _background(page) == light
    assert page.evaluate("localStorage.getItem('kernelboard-theme')") == "light"
    page.reload()
    assert _background(page) == light
    page.click("#theme-toggle")
    page.emulate_media(color_scheme="light")
    page.goto(base + "/submit/?problem=vectoradd&template=pytorch.py")
    assert _background(page) == dark
    shot(page, "24-dark-submit")
    page.evaluate("localStorage.removeItem('kernelboard-theme')")
    page.reload()
    assert _background(page) == light

    # The API docs still work under the policy.
    page.goto(base + "/api/docs")
    expect(page.locator("#swagger-ui")).to_contain_text("submissions", timeout=20_000)
    shot(page, "25-api-docs")  # CSP violations fail the test in browser_page's teardown

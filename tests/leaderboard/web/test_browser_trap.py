"""Nothing traps, in a real browser against a real platform (tests/leaderboard/web/browser.py: `manage.py serve` with one
cpu worker): the submit form says that no worker serves h100 and refuses a submission there in words; the
author cancels a submission queued behind a running one, and the worker, reaching it, judges nothing; the
tokens page's Copy button copies the new token, beside the lines that set up the command line."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.leaderboard.web.browser import MARKS, TEMPLATE, shot, sign_up, wait_until_final

pytestmark = MARKS

# Three seconds per call: its four test cases keep the only worker busy while a second submission waits.
SLOW = TEMPLATE.read_text().replace(
    "def custom_kernel(data: input_t) -> output_t:\n",
    "def custom_kernel(data: input_t) -> output_t:\n    import time\n\n    time.sleep(3.0)\n",
)


def fill_form(page, base: str, source, device: str) -> None:
    page.goto(f"{base}/submit/?problem=vectoradd")
    page.select_option("#id_problem", "vectoradd")
    page.select_option("#id_language", "pytorch")
    page.select_option("#id_device_kind", device)
    page.check("input[name=mode][value=test]")
    page.set_input_files("#id_upload", str(source))
    page.wait_for_function("document.getElementById('id_source').value.includes('custom_kernel')")
    page.click("form.submit button[type=submit]")


def test_the_trap_is_refused_and_a_queued_submission_cancelled(platform, browser_page, tmp_path):
    page, base = browser_page, platform.url
    sign_up(page, base, "dana")

    # The form names the device kinds that no worker serves, and refuses them.
    page.goto(f"{base}/submit/?problem=vectoradd")
    expect(page.locator("#id_device_kind option[value=h100]")).to_have_text(
        "h100 (no worker now: submissions are refused)"
    )
    expect(page.locator("#id_device_kind option[value=cpu]")).to_contain_text("cpu (1 worker")
    expect(page.locator('#device-kinds li[data-kind="h100"]')).to_have_class(re.compile(r"\bunserved\b"))
    fill_form(page, base, TEMPLATE, "h100")
    expect(page.locator("form.submit .errors")).to_contain_text(
        "No worker judges the h100 device kind now, so a submission there would wait for nobody; it was not "
        "queued. Device kinds served now: cpu."
    )
    assert "/submit/" in page.url and "/submissions/" not in page.url
    shot(page, "30-submit-no-worker-refused")

    # One submission keeps the worker busy; the next waits in the queue, and its author cancels it.
    slow = tmp_path / "slow_vectoradd.py"
    slow.write_text(SLOW)
    fill_form(page, base, slow, "cpu")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    busy_url = page.url
    fill_form(page, base, TEMPLATE, "cpu")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    waiting_url = page.url
    expect(page.locator("#state-badge")).to_have_text("queued")
    shot(page, "31-submission-queued-cancel")
    page.click("#cancel-form button")
    expect(page.locator("#state-badge")).to_have_text("cancelled")
    expect(page.locator("ul.messages")).to_contain_text("is cancelled: it will not be judged.")
    expect(page.locator("#message")).to_have_text("Cancelled by its author before it was judged.")
    assert page.locator("#cancel-form").count() == 0
    shot(page, "32-submission-cancelled")

    # The worker finishes the first, then takes the cancelled one's id and judges nothing.
    page.goto(busy_url)
    assert wait_until_final(page, platform, 150) == "passed", platform.logs()
    page.goto(waiting_url)
    expect(page.locator("#state-badge")).to_have_text("cancelled")
    assert page.locator("table.cases").count() == 0


def test_the_tokens_page_copies_the_new_token(platform, browser_page):
    page, base = browser_page, platform.url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    sign_up(page, base, "erin")
    page.goto(f"{base}/account/tokens/")
    expect(page.locator("#cli-env")).to_contain_text(f"export KERNELBOARD_URL={base}")
    page.fill("#id_name", "laptop")
    page.click("form.inline-form button[type=submit]")
    token = page.locator("#new-token").inner_text().strip()
    assert token.startswith("kb_")
    expect(page.locator("#cli-env")).to_have_text(
        f"export KERNELBOARD_URL={base}\nexport KERNELBOARD_TOKEN={token}"
    )
    page.click("#copy-token")
    expect(page.locator("#copy-token")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == token
    shot(page, "33-tokens-copied")

"""What the browser tests share: a real platform (`manage.py serve` on a free port: gunicorn, a Celery worker on
the filesystem broker, the sweeper, SQLite, judging with the real runner in its sandbox), Debian's Chromium
driven by Playwright, and the steps every walk through the site takes. The fixtures are tests/leaderboard/web/conftest.py's.
Screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from testbed import Serve, free_port

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "browser"
TEMPLATE = ROOT / "problems" / "vectoradd" / "templates" / "pytorch.py"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
FINAL = re.compile(r"^\s*(passed|failed|error|timeout|rejected|flagged)\s*$")
PHONE = {"width": 390, "height": 844}

# Every browser test: slow, and only where Debian's Chromium is.
MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium"),
]


def start_platform(var: Path) -> Serve:
    """The embedded platform for a browser: short benchmark windows (the pages are checked, not speed), one
    web worker, and a superuser's password for `createsuperuser --noinput`."""
    return Serve(
        var,
        free_port(),
        # The pages are walked with one worker: a leader's second judging (tested in
        # tests/leaderboard/services/test_leaders_judged_again.py) would only delay each rank.
        env={
            "RUNNER_CASE_BUDGET_S": "0.05",
            "DJANGO_SUPERUSER_PASSWORD": "staff-password-1234",
            "LEADERS_JUDGED_AGAIN": "0",
        },
        args=("--web-workers", "1"),
    )


def platform_fixture(tmp_path):
    platform = start_platform(tmp_path / "var")
    try:
        platform.wait_until_running()
        yield platform
    finally:
        if platform.proc.poll() is None:
            try:
                platform.stop()
            except subprocess.TimeoutExpired:
                platform.kill()


def browser_page_fixture():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="kb-chromium-"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
        )
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # The browser reports each breach of the Content-Security-Policy on the console.
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        yield page
        context.close()
        assert not errors, f"JavaScript errors or CSP violations on the pages: {errors}"


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def submit_template(page, base: str, mode: str) -> None:
    page.goto(f"{base}/submit/?problem=vectoradd")
    page.select_option("#id_problem", "vectoradd")
    page.select_option("#id_language", "pytorch")
    page.select_option("#id_device_kind", "cpu")
    page.check(f"input[name=mode][value={mode}]")
    page.set_input_files("#id_upload", str(TEMPLATE))
    page.wait_for_function("document.getElementById('id_source').value.includes('custom_kernel')")
    if mode == "test":
        shot(page, "03-submit")
    page.click("form.submit button[type=submit]")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))


def wait_until_final(page, platform: Serve, timeout_s: float) -> str:
    from playwright.sync_api import expect

    badge = page.locator("#state-badge")
    try:
        expect(badge).to_have_text(FINAL, timeout=timeout_s * 1000)
    except AssertionError:
        raise AssertionError(f"the page never showed a verdict:\n{platform.logs()}") from None
    return badge.inner_text().strip()


def sign_up(page, base: str, username: str) -> None:
    from playwright.sync_api import expect

    page.goto(base + "/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", "vector-adds-are-fast-1")
    page.fill("#id_password2", "vector-adds-are-fast-1")
    page.click("form button[type=submit]")
    expect(page.locator("header.site")).to_contain_text(username)


def fits(page) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{page.url} is {width} px wide on a {inner} px screen"

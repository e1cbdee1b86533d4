"""What the browser tests share: a real platform (`manage.py serve` on a free port: gunicorn, a Celery worker on
the filesystem broker, the sweeper, SQLite, judging with the real runner in its sandbox), Debian's Chromium
driven by Playwright, and the steps every walk through the site takes. The fixtures are tests/web/conftest.py's.
Screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


class Platform:
    """`manage.py serve` on a fresh var/ folder (SQLite, filesystem broker), its output collected."""

    def __init__(self, var: Path, port: int) -> None:
        self.var, self.port, self.lines = var, port, []
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ENV", "ALLOWED_HOSTS")
        }
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
                "KERNELBOARD_VAR_DIR": str(var),
                "SWEEP_INTERVAL_S": "1",
                "RUNNER_CASE_BUDGET_S": "0.05",  # short benchmark windows: this checks pages, not speed
                "DJANGO_SUPERUSER_PASSWORD": "staff-password-1234",
            }
        )
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--web-workers", "1"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def logs(self) -> str:
        parts = ["".join(self.lines)]
        for name in ("worker.log", "web.log"):
            log = self.var / "log" / name
            if log.exists():
                parts.append(f"--- {name} ---\n" + log.read_text(errors="replace")[-4000:])
        return "\n".join(parts)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def platform_fixture(tmp_path):
    from testbed import free_port, wait_for

    platform = Platform(tmp_path / "var", free_port())
    try:
        wait_for(
            lambda: (
                "Kernelboard is running at" in "".join(platform.lines) or platform.proc.poll() is not None
            ),
            timeout_s=120,
            what="manage.py serve to start",
        )
        assert platform.proc.poll() is None, platform.logs()
        yield platform
    finally:
        platform.stop()


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


def wait_until_final(page, platform: Platform, timeout_s: float) -> str:
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

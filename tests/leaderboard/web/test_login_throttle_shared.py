"""The log-in throttle counts in the cache that every web process shares (issue 31): two real gunicorn servers
on one embedded platform's database (the database cache, the embedded default), failures at either count at
both, and restarting a server forgets none of them. It once counted per process and fired at the 14th
failure of 10, and forgot everything on a restart."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from testbed import ROOT, free_port, wait_for

pytestmark = pytest.mark.slow


def _env(var: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ENV", "CACHE_URL")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "KERNELBOARD_VAR_DIR": str(var),
            "LOGIN_MAX_FAILURES": "3",
        }
    )
    return env


class Web:
    """One gunicorn process of the platform on its own port."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{self.port}", "-w", "1"],
            cwd=ROOT,
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for(self._answers, timeout_s=60, what=f"gunicorn on port {self.port}")

    def _answers(self) -> bool:
        assert self.proc.poll() is None, "gunicorn exited"
        try:
            return requests.get(f"{self.url}/healthz", timeout=2).ok
        except requests.ConnectionError:
            return False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_in(self, password: str) -> int:
        """A log-in as alice from a browser of its own (the form, its CSRF token); the answer's status."""
        session = requests.Session()
        page = session.get(f"{self.url}/login/", timeout=10).text
        token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
        answer = session.post(
            f"{self.url}/login/",
            data={"username": "alice", "password": password, "csrfmiddlewaretoken": token},
            headers={"Referer": f"{self.url}/login/"},
            allow_redirects=False,
            timeout=10,
        )
        return answer.status_code

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


@pytest.fixture
def platform_env(tmp_path):
    env = _env(tmp_path / "var")
    for command in (
        ["migrate", "--noinput"],
        [
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model; "
            "get_user_model().objects.create_user('alice', password='pw-alice-1234')",
        ],
    ):
        done = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return env


def test_two_web_processes_count_the_same_failures_and_a_restart_forgets_none(platform_env, tmp_path):
    log = tmp_path / "web.log"
    first, second = Web(platform_env, log), Web(platform_env, log)
    try:
        assert first.log_in("wrong") == 200
        assert second.log_in("wrong") == 200
        assert first.log_in("wrong") == 200  # the third failure of 3, over both processes
        assert second.log_in("pw-alice-1234") == 429, log.read_text()
        first.stop()
        first = Web(platform_env, log)  # restarted: the count lives in the database, not in the process
        assert first.log_in("pw-alice-1234") == 429
    finally:
        for web in (first, second):
            if web.proc.poll() is None:
                web.stop()


def test_two_cache_clients_on_one_redis_count_the_same_failures(tmp_path, monkeypatch, settings):
    """The same with CACHE_URL=redis://...: two separate clients (two web processes) on one Redis of the
    test's own, each attempt through the other client."""
    import shutil

    from django.core.cache.backends.redis import RedisCache
    from django.test import RequestFactory
    from testbed import RedisServer

    from leaderboard.accounts import throttle

    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    server = RedisServer(free_port(), tmp_path)
    server.start()
    try:
        settings.LOGIN_MAX_FAILURES = 3
        clients = [RedisCache(f"redis://127.0.0.1:{server.port}/1", {}) for _ in range(2)]
        request = RequestFactory().post("/login/", REMOTE_ADDR="10.0.0.1")
        for i in range(3):
            monkeypatch.setattr(throttle, "cache", clients[i % 2])
            assert not isinstance(throttle.take_attempt(request, "alice"), throttle.Refused)
        monkeypatch.setattr(throttle, "cache", clients[1])
        refused = throttle.take_attempt(request, "alice")
        assert isinstance(refused, throttle.Refused) and refused.what == "for this account from your address"
        assert 890 <= refused.wait_s <= 900
    finally:
        server.stop()

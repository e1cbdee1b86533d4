"""The production settings pass `manage.py check --deploy` with no warning."""

import os
import secrets
import subprocess
import sys

from testbed import ROOT

PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
    "DJANGO_ENV": "production",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "kernelboard.example.org",
    "DATABASE_URL": "postgres://kernelboard:secret@db.example.org:5432/kernelboard",
    "CELERY_BROKER_URL": "redis://broker.example.org:6379/0",
}


def manage(*args, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "HTTPS", "DATABASE_URL")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_in_production():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", **{**PRODUCTION_ENV, "SECRET_KEY": ""})
    assert result.returncode != 0
    assert "SECRET_KEY must be set in production" in result.stderr


def test_the_embedded_default_is_not_production_ready_and_says_so(tmp_path):
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        KERNELBOARD_VAR_DIR=str(tmp_path),
        DJANGO_ENV="embedded",
    )
    assert result.returncode != 0
    assert "SECURE_SSL_REDIRECT" in result.stderr + result.stdout

"""A worker that would not judge as the tested default does refuses to start, in words, before it takes
anything from its queue (leaderboard/submissions/readiness.py); the platform and the runner share one
default sandbox, never `none`. Real `celery worker` and `manage.py serve` processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from runner.sandbox import RUNNER_ROOT

pytestmark = pytest.mark.slow


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RUNNER_CPU_ACCOUNTING", "RUNNER_EXECUTE")}
    env.update(DJANGO_SETTINGS_MODULE="leaderboard.settings", CELERY_BROKER_URL="memory://", **extra)
    return env


def _worker(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "celery", "-A", "leaderboard.celery", "worker", "--queues", "cpu",
         "--concurrency", "1", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=RUNNER_ROOT, env=_env(**env), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_cpu_worker_on_the_docker_backend_refuses_to_start_and_says_why():
    run = _worker(RUNNER_SANDBOX="docker")
    assert run.returncode == 78, run.stdout[-2000:] + run.stderr[-2000:]
    assert "This worker will not judge the cpu queue" in run.stderr, run.stderr[-2000:]
    assert "RUNNER_CPU_ACCOUNTING=proc" in run.stderr and "Traceback" not in run.stderr
    assert "celery@" not in run.stdout + run.stderr  # it never came up to take a message


def test_a_cpu_worker_without_the_job_cgroup_refuses_to_start():
    run = _worker(RUNNER_SANDBOX="bwrap", RUNNER_CGROUP_PARENT="/proc/kernelboard-no-cgroup-here")
    assert run.returncode == 78, run.stdout[-2000:] + run.stderr[-2000:]
    assert "cannot make a cgroup under /proc/kernelboard-no-cgroup-here" in run.stderr, run.stderr[-2000:]


def test_serve_refuses_before_starting_anything(tmp_path):
    run = subprocess.run(
        [sys.executable, "manage.py", "serve", "--port", "0"],
        cwd=RUNNER_ROOT, capture_output=True, text=True, timeout=120,
        env=_env(RUNNER_SANDBOX="docker", KERNELBOARD_VAR_DIR=str(tmp_path)),
    )  # fmt: skip
    assert run.returncode != 0 and "This worker will not judge the cpu queue" in run.stderr, run.stderr[
        -2000:
    ]
    assert not (tmp_path / "db.sqlite3").exists()  # it stopped before migrating or starting a child


def test_the_platform_uses_the_runners_default_sandbox_never_none(tmp_path):
    """Where bubblewrap is missing from PATH, the platform used to fall back to `none`; it takes the
    runner's default (the unshare fallback as root, or docker), or none at all ("": judging refuses)."""
    probe = (
        "import django; django.setup(); from django.conf import settings; from runner.sandbox import "
        "default_sandbox\ntry:\n    runner = default_sandbox()\nexcept RuntimeError:\n    runner = ''\n"
        "print(repr(settings.RUNNER_SANDBOX), repr(runner))"
    )
    env = _env(KERNELBOARD_VAR_DIR=str(tmp_path), PATH="/nonexistent")
    env.pop("RUNNER_SANDBOX", None)
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=RUNNER_ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr[-2000:]
    platform, runner = run.stdout.split()
    assert platform == runner and platform != "'none'", run.stdout

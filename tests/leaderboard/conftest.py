"""Fixtures of the platform's tests (testbed.py says what they run against).

Personas: alice submits, bob is another contestant, charlie must see nothing of alice's; robo is an agent.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # testbed and instant_judge, from any subfolder

import testbed  # noqa: E402

testbed.configure_django()


@pytest.fixture
def postgres(db):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL at 127.0.0.1:5432 (or DATABASE_URL): it did not answer")


@pytest.fixture(scope="session")
def redis_server():
    if not shutil.which("redis-server"):
        pytest.skip(
            "redis-server is not installed: these tests run a Redis of their own, so as to restart it"
        )
    from django.conf import settings

    if settings.CELERY_BROKER_URL != testbed.REDIS_URL:
        pytest.skip("Django was set up before this conftest: the broker is not the tests' private Redis")
    return testbed.private_redis()


@pytest.fixture
def broker(redis_server):
    """The private Redis, emptied for each test."""
    redis_server.client().flushall()
    yield redis_server
    redis_server.client().flushall()


@pytest.fixture
def workers(transactional_db, broker, tmp_path):
    pool = testbed.Workers(broker.url, tmp_path)
    yield pool
    pool.stop_all()


@pytest.fixture
def problems(db):
    """The problems/ folders, synced into the test database."""
    from leaderboard.problems.services import problem_sync_all

    return {r.name: r for r in problem_sync_all()}


@pytest.fixture
def alice(db):
    return testbed.make_persona("alice")


@pytest.fixture
def bob(db):
    return testbed.make_persona("bob")


@pytest.fixture
def charlie(db):
    return testbed.make_persona("charlie")


@pytest.fixture
def robo(db):
    return testbed.make_persona("robo", is_agent=True)


@pytest.fixture
def no_limits(settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 0
    settings.SUBMISSION_MAX_PER_HOUR = 0


@pytest.fixture
def judged(problems, no_limits):
    """Makes a submission and judges it through the services with a report of the caller's choosing (no
    runner): for the selectors and the API, which read what a run left behind."""
    from runner.spec import CaseResult, RunReport, Stats

    def make(
        persona,
        *,
        score_s: float | None = 1e-5,
        verdict: str = "passed",
        mode: str = "leaderboard",
        device_kind: str = "cpu",
        secret: str | None = "passed",
        public: str = "passed",
        interval: tuple[float, float] | None = None,
    ):
        """`interval`: the score's 95 % interval (and its one timed case's), as the runner's bootstrap
        would give it; None for a run judged before intervals were kept."""
        submission = testbed.make_submission(
            persona.user,
            source=testbed.vectoradd_source(f"{persona.user.username} {score_s} {time.monotonic_ns()}"),
            mode=mode,
            device_kind=device_kind,
        )
        claimed = testbed.claim(submission)
        low, high = interval or (None, None)
        stats = Stats(
            n=100,
            windows=10,
            mean=score_s or 1e-5,
            std=0.0,
            stderr=1e-8,
            min=1e-5,
            max=1e-5,
            median=score_s or 1e-5,
            median_low=low,
            median_high=high,
        )
        cases = [
            CaseResult(id="vectoradd[size=31]", kind="test", status=public),
            CaseResult(id="vectoradd[size=256]", kind="benchmark", status=public, stats=stats),
        ]
        if secret is not None:
            cases.append(CaseResult(id="vectoradd[size=256]", kind="secret", status=secret, stats=stats))
        report = RunReport(
            verdict=verdict,
            message="" if verdict == "passed" else f"it was {verdict}",
            problem="vectoradd",
            mode=mode,
            device="cpu",
            score_s=score_s,
            score_low_s=low,
            score_high_s=high,
            cases=cases,
        )
        return testbed.finish(claimed, report)

    return make

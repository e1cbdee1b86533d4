"""Fixtures of the web pages' tests, on the platform's test bed (tests/leaderboard/testbed.py).

Personas: alice submits, bob is another contestant who must not see alice's private things, robo is an
agent, staff is a staff member (the admin's reviewer).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # testbed.py, in the folder above

import testbed  # noqa: E402

testbed.configure_django()


from tests.leaderboard.conftest import no_limits, problems  # noqa: E402, F401 (the platform's fixtures)


def _user(username: str, **flags):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username=username, password=f"pw-{username}-1234", **flags)
    return user


@pytest.fixture
def alice(db):
    return _user("alice")


@pytest.fixture
def bob(db):
    return _user("bob")


@pytest.fixture
def robo(db):
    return _user("robo", is_agent=True)


@pytest.fixture
def staff(db):
    return _user("staff", is_staff=True, is_superuser=True)


@pytest.fixture
def as_user(client):
    """A test client logged in as the given user (a fresh one each call)."""
    from django.test import Client

    def login(user) -> Client:
        c = Client()
        c.force_login(user)
        return c

    return login


@pytest.fixture
def submit(problems, no_limits):
    """A queued submission of the correct vectoradd kernel, made through the service."""

    def make(user, *, mode: str = "test", device_kind: str = "cpu", note: str = ""):
        return testbed.make_submission(
            user,
            source=testbed.vectoradd_source(f"{user.username} {note} {time.monotonic_ns()}"),
            mode=mode,
            device_kind=device_kind,
        )

    return make


@pytest.fixture
def judged(submit):
    """A submission judged through the services with a report of the test's choosing (no runner: the pages
    read what a run left behind). Timed cases carry FLOP/s and bytes/s like the runner's."""
    from runner.spec import CaseResult, RunReport, Stats

    def make(
        user,
        *,
        score_s: float = 1e-3,
        verdict: str = "passed",
        mode: str = "leaderboard",
        device_kind: str = "cpu",
        flags: list | None = None,
        logs: str = "",
        scan: list | None = None,
        env: dict | None = None,
        case_message: str = "",
        skipped: int = 0,
        spread: float = 0.01,
    ):
        """`spread`: the score's 95 % interval, as a fraction of it either side (the runner's bootstrap
        gives about this for eight quiet windows)."""
        submission = submit(user, mode=mode, device_kind=device_kind, note=str(score_s))
        claimed = testbed.claim(submission)
        stats = Stats(
            n=40,
            windows=8,
            mean=score_s,
            std=score_s / 10,
            stderr=score_s / 50,
            min=score_s * 0.9,
            max=score_s * 1.2,
            flops_per_s=65536 / score_s,
            bytes_per_s=393216 / score_s,
            median=score_s,
            median_low=score_s * (1 - spread),
            median_high=score_s * (1 + spread),
            per_window=[score_s * (1 + spread * (i - 3.5) / 4) for i in range(8)],
        )
        timed_status = "flagged" if verdict == "flagged" else "passed"
        cases = [
            CaseResult(
                id="vectoradd[size=31]",
                kind="test",
                status="failed" if case_message else "passed",
                message=case_message,
            )
        ]
        if mode != "test":
            cases.append(
                CaseResult(
                    id="vectoradd[size=256]", kind="benchmark", status="passed", stats=stats, floor_s=3.6e-6
                )
            )
        if mode == "leaderboard":
            cases.append(
                CaseResult(
                    id="vectoradd[size=256]", kind="secret", status=timed_status, stats=stats, floor_s=3.6e-6
                )
            )
        cases += [
            CaseResult(
                id=f"vectoradd[size={512 << i}]",
                kind="secret",
                status="skipped",
                message="skipped: an earlier case failed",
            )
            for i in range(skipped)
        ]
        report = RunReport(
            verdict=verdict,
            message="" if verdict == "passed" else f"it was {verdict}",
            problem="vectoradd",
            mode=mode,
            device="cpu",
            score_s=score_s if mode != "test" else None,
            score_low_s=score_s * (1 - spread) if mode != "test" else None,
            score_high_s=score_s * (1 + spread) if mode != "test" else None,
            cases=cases,
            flags=flags or [],
            env=env
            or {
                "python": "3.11",
                "torch": "2.13.0+cpu",
                "device": "cpu: test machine",
                "device_kind": "cpu",
            },
            limits={"wall_s": 900, "memory_bytes": 1 << 34},
            logs=logs,
            scan=scan or [],
            isolation="isolated by the tests' imagination",
        )
        return testbed.finish(claimed, report)

    return make


@pytest.fixture
def floor_flag() -> dict:
    """What the judge records when a case is timed below the physical floor."""
    return {
        "kind": "floor",
        "message": "vectoradd[size=256]: 1e-07 s per call is below the physical floor of 3.6e-06 s on cpu",
        "evidence": {"case": "vectoradd[size=256]", "mean_s": 1e-07, "floor_s": 3.6e-06},
    }


@pytest.fixture(autouse=True)
def _fresh_cache(request, django_db_blocker):
    """The pages cache a problem's standings; ids repeat across tests' rolled-back databases. The cache is a
    table of the test database (settings.CACHES), cleared outside any test's transaction; a test without the
    database (a browser's, on a platform of its own) has no test database to clear."""
    from django.core.cache import cache

    if not {"db", "transactional_db"} & set(request.fixturenames):
        yield
        return
    request.getfixturevalue("django_db_setup")
    with django_db_blocker.unblock():
        cache.clear()
    yield
    with django_db_blocker.unblock():
        cache.clear()


# The browser tests' platform and page (tests/leaderboard/web/browser.py).
@pytest.fixture
def platform(tmp_path):
    from tests.leaderboard.web.browser import platform_fixture

    yield from platform_fixture(tmp_path)


@pytest.fixture
def browser_page():
    from tests.leaderboard.web.browser import browser_page_fixture

    yield from browser_page_fixture()

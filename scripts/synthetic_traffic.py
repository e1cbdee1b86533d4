"""Synthetic traffic for the platform's benchmarks (bench_rankings.py, bench_problem_page.py): users,
submissions, runs and cases bulk-inserted into the configured database (fill: Django must be set up), and
what both benchmarks take: their common options and a PostgreSQL database of their own."""

from __future__ import annotations

import argparse
import contextlib
import random
from dataclasses import dataclass
from datetime import timedelta


def traffic_arguments(doc: str, *, requests: int) -> argparse.ArgumentParser:
    """The options both benchmarks take: the PostgreSQL server, and how much traffic to make and ask for."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--server",
        default="postgres://postgres@127.0.0.1:5432/test",
        help="a PostgreSQL URL; the benchmark's database is made beside its database",
    )
    parser.add_argument("--submissions", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=requests)
    parser.add_argument("--users", type=int, default=500)
    return parser


@contextlib.contextmanager
def own_database(server: str, name: str):
    """A database of its own beside `server`'s (a PostgreSQL URL), its URL; dropped at the end, after
    Django's connections to it are closed."""
    import psycopg

    admin = psycopg.connect(server, autocommit=True)
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        base, _, _ = server.rpartition("/")
        yield f"{base}/{name}"
    finally:
        from django.db import connections

        connections.close_all()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@dataclass(frozen=True)
class Traffic:
    users: int
    submissions: int
    runs: int
    ranked_id: int  # one passed submission, for pages that show one


def fill(*, n_users: int, n_submissions: int) -> Traffic:
    """Bulk-insert `n_users` users and `n_submissions` submissions of vectoradd over a month, with their runs and
    cases (the shapes production sees: most ranked and passed, some failed, flagged or queued)."""
    from django.utils import timezone

    from leaderboard.accounts.models import User
    from leaderboard.problems.models import Problem
    from leaderboard.submissions.models import Run, RunCase, Source, State, Submission

    version = Problem.objects.get(name="vectoradd").current_version
    rng = random.Random(7)
    users = User.objects.bulk_create(
        User(username=f"user{i:04d}", is_agent=i % 10 == 0, password="!") for i in range(n_users)
    )
    sources = Source.objects.bulk_create(
        (Source(text=f"# submission {i}\n", sha256=f"{i:064x}", size_bytes=20) for i in range(n_submissions)),
        batch_size=2000,
    )
    now = timezone.now()
    kinds = rng.choices(
        ["cpu", "h100", "h200", "a100", "b200", "mi300x"], [5, 2, 1, 1, 0.5, 0.5], k=n_submissions
    )
    modes = rng.choices(["leaderboard", "benchmark", "test"], [6, 2.5, 1.5], k=n_submissions)
    states = rng.choices(
        [State.PASSED, State.FAILED, State.ERROR, State.FLAGGED, State.QUEUED],
        [80, 12, 4, 1, 3],
        k=n_submissions,
    )
    span_s = 30 * 86400  # a month of traffic
    submissions = Submission.objects.bulk_create(
        (
            Submission(
                user=rng.choice(users),
                problem_version=version,
                source=sources[i],
                language="pytorch",
                device_kind=kinds[i],
                mode=modes[i],
                state=states[i],
                attempts=0 if states[i] == State.QUEUED else 1,
                created_at=now - timedelta(seconds=span_s * (n_submissions - i) / n_submissions),
            )
            for i in range(n_submissions)
        ),
        batch_size=2000,
    )
    runs = Run.objects.bulk_create(
        (
            Run(
                submission=s,
                verdict=s.state,
                score_s=rng.lognormvariate(-11, 0.5),
                public_passed=s.state == State.PASSED,
                secret_passed=s.state == State.PASSED,
                flagged=s.state == State.FLAGGED,
                report={"verdict": s.state},
                worker="cpu@bench",
                attempt=1,
                started_at=s.created_at,
                finished_at=s.created_at,
            )
            for s in submissions
            if s.state != State.QUEUED
        ),
        batch_size=2000,
    )
    RunCase.objects.bulk_create(
        (
            RunCase(
                run=r,
                position=p,
                case_id=f"vectoradd[size={256 << p}]",
                kind=kind,
                status="passed",
                mean_s=r.score_s,
                stats={"n": 10, "mean": r.score_s, "min": r.score_s, "max": r.score_s},
            )
            for r in runs
            for p, kind in enumerate(("test", "benchmark", "secret"))
        ),
        batch_size=5000,
    )
    ranked_id = next(r.submission_id for r in runs if r.verdict == State.PASSED)
    return Traffic(len(users), len(submissions), len(runs), ranked_id)

#!/usr/bin/env python
"""The rankings endpoint's latency with 10,000 submissions in PostgreSQL (target: p95 <= 100 ms).

    .venv/bin/python scripts/bench_rankings.py [--server postgres://postgres@127.0.0.1:5432/test]
                                               [--submissions 10000] [--requests 300]

It makes a database of its own on that server (dropped at the end), migrates it, syncs the problems and
fills it with bulk inserts shaped like real traffic: the submissions of 500 users (one in ten an agent)
over the six device kinds and the three modes, most judged and passed, each final one with its run and
three cases. Then it asks GET /api/problems/vectoradd/rankings?device=cpu through Django's whole stack
(middleware, ninja, JSON; the test client, so no network) and prints p50, p95 and p99.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from synthetic_traffic import fill, own_database, traffic_arguments  # scripts/, beside this file

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    args = traffic_arguments(__doc__, requests=300).parse_args()

    with own_database(args.server, f"kernelboard_bench_{os.getpid()}") as url:
        os.environ.update(
            {
                "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
                "DATABASE_URL": url,
                "KERNELBOARD_VAR_DIR": str(ROOT / "var" / "bench"),
                "LOG_LEVEL": "WARNING",
            }
        )
        import django

        django.setup()
        return run(args)


def run(args) -> int:
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from leaderboard.problems.models import Problem
    from leaderboard.problems.services import problem_sync_all
    from leaderboard.submissions.models import Submission

    call_command("migrate", verbosity=0)
    problem_sync_all()

    started = time.perf_counter()
    traffic = fill(n_users=args.users, n_submissions=args.submissions)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"filled: {traffic.users} users, {traffic.submissions} submissions, {traffic.runs} runs, "
        f"{3 * traffic.runs} cases "
        f"in {time.perf_counter() - started:.1f} s"
    )

    client = Client()
    url = "/api/problems/vectoradd/rankings?device=cpu"
    for _ in range(20):  # warm up: connections, caches, the query plan
        client.get(url)
    times, cpu = [], []
    for _ in range(args.requests):
        t0, c0 = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert response.status_code == 200, response.content
    entries = response.json()["entries"]
    q = statistics.quantiles(times, n=100)
    problem = Problem.objects.get(name="vectoradd")
    sql = ranking_sql(problem)
    executions = []
    with connection.cursor() as cursor:
        for _ in range(20):
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
            executions.append(cursor.fetchone()[0][0]["Execution Time"])
    print(
        f"GET {url}: {len(entries)} entries (limit 100) over "
        f"{Submission.objects.filter(device_kind='cpu', mode='leaderboard').count()} cpu leaderboard submissions"
    )
    print(
        f"latency over {args.requests} requests: p50 {q[49] * 1e3:.1f} ms, p95 {q[94] * 1e3:.1f} ms, "
        f"p99 {q[98] * 1e3:.1f} ms (target p95 <= 100 ms)"
    )
    print(
        f"CPU time of the web process per request: median {statistics.median(cpu) * 1e3:.1f} ms; the ranking "
        f"query in PostgreSQL: median {statistics.median(executions):.1f} ms; "
        f"load average during the run {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    return 0 if q[94] <= 0.1 else 1


def ranking_sql(problem):
    """The SQL of the ranking, by running the selector once with the queries recorded."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from leaderboard.submissions.selectors import ranking_for_problem

    with CaptureQueriesContext(connection) as queries:
        ranking_for_problem(problem=problem, device_kind="cpu", limit=100)
    return queries.captured_queries[-1]["sql"]


if __name__ == "__main__":
    sys.exit(main())

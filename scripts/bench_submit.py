#!/usr/bin/env python
"""Submit-to-verdict time of vectoradd on the embedded default (target: <= 10 s on CPU, test mode and
leaderboard mode).

    .venv/bin/python scripts/bench_submit.py [--runs 5] [--port 8799] [--mode test|leaderboard]

It starts `manage.py serve` on a fresh var/ folder in a temporary directory (SQLite, the filesystem broker,
one worker, the sandbox of RUNNER_SANDBOX or its default), makes a token, and submits the correct vectoradd
kernel --runs times, one after another, over HTTP, polling the submission every 50 ms. For each it prints
the total (POST to final state) and its parts: waiting in the queue (created -> claimed) and judging
(claimed -> finished, the runner's own time included). Then it times the runner alone on the same source,
in this process, so that the platform's overhead reads as the difference. In leaderboard mode the leaders'
second judging is off (LEADERS_JUDGED_AGAIN=0): it starts after the verdict, and would otherwise be queued
ahead of the next run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SOURCE = (ROOT / "problems" / "vectoradd" / "templates" / "pytorch.py").read_text()


def call(url: str, token: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@contextlib.contextmanager
def embedded_server(port: int, **env_overrides: str):
    """`manage.py serve` on a fresh var/ folder (SQLite, the filesystem broker, one worker): yields its API's
    base URL and a token of a user "bench"; stopped as Ctrl-C stops it."""
    var = Path(tempfile.mkdtemp(prefix="kb-bench-var-"))
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ENV")
    }
    env.update({"DJANGO_SETTINGS_MODULE": "leaderboard.settings", "KERNELBOARD_VAR_DIR": str(var)})
    env.update(env_overrides)
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for line in serve.stdout:
            if "Press Ctrl-C" in line:
                break
            if "sandbox" in line or "running at" in line:
                print(line.strip())
        else:
            raise SystemExit("serve did not start")
        token = subprocess.run(
            [sys.executable, "manage.py", "create_api_token", "bench"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        yield f"http://127.0.0.1:{port}/api", token
    finally:
        serve.send_signal(signal.SIGINT)
        serve.wait(timeout=60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--mode", choices=["test", "leaderboard"], default="test")
    args = parser.parse_args()

    with embedded_server(args.port, LEADERS_JUDGED_AGAIN="0") as (base, token):
        totals = []
        for i in range(args.runs):
            t0 = time.perf_counter()
            created = call(
                f"{base}/submissions",
                token,
                {"problem": "vectoradd", "device": "cpu", "mode": args.mode, "source": SOURCE + f"# {i}\n"},
            )
            while not (doc := call(f"{base}/submissions/{created['id']}", token))["final"]:
                time.sleep(0.05)
            total = time.perf_counter() - t0
            totals.append(total)
            created_at, started, finished = (
                datetime.fromisoformat(doc[k]) for k in ("created_at", "started_at", "finished_at")
            )
            print(
                f"run {i + 1}: {doc['state']} in {total:.2f} s (queue {(started - created_at).total_seconds():.2f} s,"
                f" judging {(finished - started).total_seconds():.2f} s)"
            )

    os.environ.setdefault("RUNNER_SANDBOX", "")
    from runner import JobSpec, execute

    sandbox = ""  # the runner's default, as the platform's (runner.sandbox.default_sandbox)
    t0 = time.perf_counter()
    alone = execute(
        JobSpec(problem="vectoradd", source=SOURCE, mode=args.mode, device="cpu", sandbox=sandbox)
    )
    runner_s = time.perf_counter() - t0
    median = statistics.median(totals)
    print(
        f"submit-to-verdict: median {median:.2f} s, min {min(totals):.2f} s, max {max(totals):.2f} s over "
        f"{len(totals)} runs, {args.mode} mode (target <= 10 s)"
    )
    print(
        f"the runner alone (sandbox {sandbox}): {alone.verdict} in {runner_s:.2f} s; "
        f"the platform's share of the median: {median - runner_s:.2f} s"
    )
    return 0 if median <= 10 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Candidates an hour for one agent run, judged locally (the runner in the agent's process) and through a
server's exploration tier (issue 32): the same run, one path after the other.

    .venv/bin/python scripts/bench_agent_paths.py [--problem vectoradd] [--steps 2] [--groups 2]
        [--rollouts 4] [--seed 1] [--port 8798]

The server is `manage.py serve` on a fresh var/ folder (SQLite, the filesystem broker, its one embedded
worker), as scripts/bench_submit.py starts it; the agent keeps four candidates waiting there
(`--workers 4`) and enters nothing (`--no-submit`). Both paths time candidates EXPLORE_CASE_BUDGET_S
(0.2 s) a case. Prints each path's wall time, its candidates and the rate; read the machine's load beside
it, since both paths are bound by the judging on this machine's cores.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from bench_submit import ROOT, embedded_server


def run_agent(args, *extra: str) -> tuple[float, float]:
    """The run's wall seconds, and the machine's load (1-minute average) at its end."""
    command = [
        sys.executable,
        "-m",
        "agents",
        "--problem",
        args.problem,
        "--policy",
        "offline",
        "--steps",
        str(args.steps),
        "--groups",
        str(args.groups),
        "--rollouts",
        str(args.rollouts),
        "--seed",
        str(args.seed),
        "--case-budget",
        "0.2",
        *extra,
    ]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, os.getloadavg()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="vectoradd")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=8798)
    args = parser.parse_args()
    candidates = args.steps * args.groups * args.rollouts

    with tempfile.TemporaryDirectory(prefix="kb-agent-local-") as out:
        local = run_agent(args, "--out", out)
    with embedded_server(args.port) as (base, token):
        served = run_agent(
            args, "--url", base.removesuffix("/api"), "--token", token, "--workers", "4", "--no-submit"
        )
    for path, (seconds, load) in (("local", local), ("exploration tier", served)):
        print(
            f"{path}: {candidates} candidates in {seconds:.0f} s, {candidates * 3600 / seconds:.0f} an hour"
            f" (load {load:.1f} at its end)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

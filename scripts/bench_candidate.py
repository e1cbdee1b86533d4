"""The wall time of one agent candidate as the agents judge it (benchmark mode, bwrap, case_budget_s 0.2),
with judges and contestants forked from the fork server and started as fresh interpreters, alternating in
blocks so that both see the same machine. docs/benchmarks.md ("Judging cost of one agent candidate").

    .venv/bin/python scripts/bench_candidate.py [--problem trimul] [--blocks 4] [--per-block 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from runner.caller import execute
from runner.problem import load_problem
from runner.spec import JobSpec


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problem", default="trimul")
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--per-block", type=int, default=5)
    args = parser.parse_args()
    source = load_problem(args.problem).templates["pytorch.py"]
    times: dict[str, list[float]] = {"forked": [], "exec": []}
    scores: dict[str, list[float]] = {"forked": [], "exec": []}
    for _ in range(args.blocks):
        for way in ("forked", "exec"):
            os.environ["RUNNER_FORKSERVER"] = "1" if way == "forked" else "0"
            for i in range(args.per_block + 1):
                started = time.monotonic()
                report = execute(
                    JobSpec(
                        problem=args.problem,
                        source=source,
                        mode="benchmark",
                        device="cpu",
                        sandbox="bwrap",
                        case_budget_s=0.2,
                    )
                )
                took = time.monotonic() - started
                if report.verdict != "passed":
                    raise SystemExit(f"{way}: {report.verdict}: {report.message}")
                if i:  # the first of each block warms the way up (the server's start, the page cache)
                    times[way].append(took)
                    scores[way].append(report.score_s)
    load = os.getloadavg()
    print(f"{args.problem}, {args.blocks} blocks x {args.per_block} candidates each way; load {load[0]:.2f}")
    for way in times:
        print(
            f"{way:>6}: {statistics.median(times[way]):.2f} s per candidate (min {min(times[way]):.2f}),"
            f" score median {statistics.median(scores[way]) * 1e3:.3f} ms"
        )
    imports = []
    for _ in range(3):
        started = time.monotonic()
        os.system(f"{os.sys.executable} -c 'import torch'")
        imports.append(time.monotonic() - started)
    print(f"python -c 'import torch': {statistics.median(imports):.2f} s (median of 3)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""The agents' benchmark as a picture: the best speed-up found so far against the candidates judged, one
line per method (the mean over the seeds that got that far), from the runs' saved state.

    .venv/bin/python scripts/plot_agent_bench.py var/bench/trimul docs/figures/agents-trimul.svg

It reads `<method>-seed<k>/run.json` under the benchmark's `--out` folder (written after every step, so a
benchmark still running, or stopped and resumed later, can be drawn) and draws with the site's own SVG
charts (leaderboard/web/plots.py). The speed-ups are as searched: each over the reference measured at the
start of its run; the head-to-head figures are the benchmark's printout.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUN_DIR = re.compile(r"^(?P<method>[a-z-]+)-seed(?P<seed>\d+)$")


def best_so_far(run_json: Path) -> list[tuple[int, float]]:
    """(candidates judged, best speed-up so far) after each step of one run."""
    steps = json.loads(run_json.read_text())["steps"]
    out, judged = [], 0
    for step in steps:
        judged += step["candidates"]
        out.append((judged, step["best_reward"]))
    return out


def method_lines(bench_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Per method, the mean over its seeds of the best so far, at each count that every one of them reached
    (so a line never mixes seeds that ran further with seeds that stopped)."""
    runs: dict[str, list[list[tuple[int, float]]]] = defaultdict(list)
    for run_dir in sorted(bench_dir.iterdir()):
        m = RUN_DIR.match(run_dir.name)
        if m and (run_dir / "run.json").exists():
            runs[m["method"]].append(best_so_far(run_dir / "run.json"))
    lines = {}
    for method, curves in runs.items():
        reached = min(len(c) for c in curves)
        label = f"{method} (mean of {len(curves)} seed{'s' if len(curves) > 1 else ''})"
        lines[label] = [(curves[0][i][0], statistics.fmean(c[i][1] for c in curves)) for i in range(reached)]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench_dir", type=Path, help="the benchmark's --out folder")
    ap.add_argument("svg", type=Path, help="where to write the plot")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    from leaderboard.web.plots import line_chart  # Django's escaping only: no settings needed

    lines = method_lines(args.bench_dir)
    if not lines:
        print(f"no runs under {args.bench_dir}", file=sys.stderr)
        return 1
    svg = line_chart(
        sorted(lines.items()),
        title=args.title or f"{args.bench_dir.name}: best speed-up so far",
        x_label="candidates judged",
        y_label="best speed-up over the reference",
        y_format=lambda v: f"{v:.2f}x",
    )
    args.svg.parent.mkdir(parents=True, exist_ok=True)
    args.svg.write_text(str(svg) + "\n")
    for label, points in sorted(lines.items()):
        print(f"{label}: {points[-1][1]:.2f}x after {points[-1][0]} candidates")
    return 0


if __name__ == "__main__":
    sys.exit(main())

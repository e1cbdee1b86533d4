"""python -m runner run PROBLEM SUBMISSION.py --mode test|benchmark|leaderboard|profile --device cpu|cuda [--json]
    [--profile-csv DIR]

Exit status: 0 when the verdict is passed, 1 when it is not, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runner.caller import execute
from runner.problem import list_problems
from runner.report import render, write_profile_csvs
from runner.spec import DEVICES, MODES, SANDBOXES, JobSpec


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m runner", description="Judge a kernel as the leaderboard does."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="judge a submission")
    run.add_argument("problem", help=f"one of: {', '.join(list_problems())}")
    run.add_argument("submission", type=Path, help="a Python file that defines custom_kernel(data)")
    run.add_argument("--mode", choices=MODES, default="test")
    run.add_argument("--device", choices=DEVICES, default="cpu")
    run.add_argument(
        "--sandbox",
        choices=SANDBOXES,
        default="",
        help="bwrap, docker or none (default: what the platform uses: RUNNER_SANDBOX, else bwrap)",
    )
    run.add_argument(
        "--allow-unisolated",
        action="store_true",
        help="let leaderboard mode run with --sandbox none (for the runner's own tests)",
    )
    run.add_argument("--threads", type=int, default=1, help="CPU threads of the contestant (default 1)")
    run.add_argument("--seed", type=int, default=None, help="the run seed (default: a fresh secret one)")
    run.add_argument("--case-budget", type=float, default=None, help="timed seconds per benchmark case")
    run.add_argument("--json", action="store_true", help="print the RunReport as JSON")
    run.add_argument(
        "--profile-csv",
        type=Path,
        default=None,
        metavar="DIR",
        help="profile mode: write each case's operator table to DIR as a CSV file",
    )
    sub.add_parser("problems", help="list the problems")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "problems":
        print("\n".join(list_problems()))
        return 0
    if args.problem not in list_problems():
        parser.error(
            f"there is no problem called {args.problem!r}; the problems are: {', '.join(list_problems())}"
        )
    try:
        raw = args.submission.read_bytes()
    except OSError as exc:
        parser.error(f"cannot read {args.submission}: {exc.strerror}")
    spec = JobSpec(
        problem=args.problem,
        source=raw.decode("utf-8", errors="surrogateescape"),
        mode=args.mode,
        device=args.device,
        sandbox=args.sandbox,
        allow_unisolated=args.allow_unisolated,
        secret_seed=args.seed,
        threads=args.threads,
        case_budget_s=args.case_budget,
    )
    report = execute(spec)
    if args.profile_csv is not None:
        for path in write_profile_csvs(report.profiles, args.profile_csv):
            print(f"wrote {path}", file=sys.stderr)
    if args.json:
        print(report.to_json(indent=2))
    else:
        print(render(report))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())

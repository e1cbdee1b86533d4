"""python -m agents --problem trimul --device cpu --steps 6 --groups 2 --rollouts 8 --out var/agent/trimul

A TTT-Discover run: the same loop, policy and verifier as `manage.py run_agent`, with a line per step. The run
resumes from --out if it holds one.

Without --url it needs no platform (no database, no entry in the rankings): candidates are judged here by
the runner, for offline benchmarks. With --url (and a token) it is a client of that server: candidates are
judged by its workers in its exploration tier, through its API, and the best is entered there in
leaderboard mode (agents/platform.py; --no-submit skips the entry).
"""

from __future__ import annotations

import argparse
import sys

from agents.runs import add_run_arguments, run_from_options
from runner.vocabulary import DEVICE_KINDS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agents", description="Run a TTT-Discover agent on a problem."
    )
    add_run_arguments(ap)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="the runner's device (here)")
    ap.add_argument(
        "--device-kind",
        default="cpu",
        choices=tuple(DEVICE_KINDS),
        help="with --url: the server's device kind to judge on (its runner device replaces --device)",
    )
    ap.add_argument("--sandbox", default="", help="bwrap, docker or none (default: what the platform uses)")
    ap.add_argument("--no-submit", action="store_true", help="with --url: do not enter the best kernel")
    a = ap.parse_args(argv)
    device = DEVICE_KINDS[a.device_kind].runner_device if a.url else a.device
    try:
        run = run_from_options(
            vars(a), device=device, out_dir=a.out, sandbox=a.sandbox, device_kind=a.device_kind
        )
    except (ValueError, KeyError) as exc:
        print(f"python -m agents: {exc}", file=sys.stderr)
        return 2

    def log(r, d):
        best = f"{r.best_runtime_s * 1e3:.3f} ms" if r.best_runtime_s else "-"
        print(
            f"step {r.step}: mean reward {r.mean_reward:.3f}, max {r.max_reward:.3f}, {r.passed}/{r.candidates} "
            f"passed, best {best} ({r.best_reward:.2f}x the reference), {r.seconds:.0f} s",
            flush=True,
        )

    from agents.platform import PlatformError

    try:
        best = run.run(on_step=log)
    except PlatformError as exc:
        print(f"python -m agents: the server {a.url} refused the run: {exc}", file=sys.stderr)
        return 2
    if best is None:
        print("no kernel passed", file=sys.stderr)
        return 1
    print(f"best {best.id}: {best.runtime_s} s, {best.reward:.2f}x the reference\n{best.code}")
    if a.url and not a.no_submit:
        try:
            entry = run.verifier.enter(best.code)
        except PlatformError as exc:
            print(f"python -m agents: the entry was refused: {exc}", file=sys.stderr)
            return 2
        print(f"entered as submission #{entry.id} on {a.url}: {entry.state} {entry.message}".rstrip())
        return 0 if entry.state == "passed" else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

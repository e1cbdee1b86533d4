"""python -m agents --problem trimul --device cpu --steps 6 --groups 2 --rollouts 8 --out var/agent/trimul

A TTT-Discover run without the platform (no database, no entry in the rankings): the same loop, policy and
verifier as `manage.py run_agent`, with a line per step. The run resumes from --out if it holds one.
"""

from __future__ import annotations

import argparse
import sys

from agents.runs import add_run_arguments, run_from_options


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agents", description="Run a TTT-Discover agent on a problem."
    )
    add_run_arguments(ap)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--sandbox", default="", help="bwrap, docker or none (default: what the platform uses)")
    a = ap.parse_args(argv)
    run = run_from_options(vars(a), device=a.device, out_dir=a.out, sandbox=a.sandbox)

    def log(r, d):
        best = f"{r.best_runtime_s * 1e3:.3f} ms" if r.best_runtime_s else "-"
        print(
            f"step {r.step}: mean reward {r.mean_reward:.3f}, max {r.max_reward:.3f}, {r.passed}/{r.candidates} "
            f"passed, best {best} ({r.best_reward:.2f}x the reference), {r.seconds:.0f} s",
            flush=True,
        )

    best = run.run(on_step=log)
    if best is None:
        print("no kernel passed", file=sys.stderr)
        return 1
    print(f"best {best.id}: {best.runtime_s} s, {best.reward:.2f}x the reference\n{best.code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

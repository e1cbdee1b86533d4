"""python -m agents --problem trimul --device cpu --steps 6 --groups 2 --rollouts 8 --out var/agent/trimul

A TTT-Discover run without the platform (no database, no entry in the rankings): the same loop, policy and
verifier as `manage.py run_agent`, with a line per step. The run resumes from --out if it holds one.
"""

from __future__ import annotations

import argparse
import sys

from agents.loop import ABLATIONS
from agents.runs import POLICIES, LLMOptions, make_run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agents", description="Run a TTT-Discover agent on a problem."
    )
    ap.add_argument("--problem", required=True)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--policy", default="offline", choices=POLICIES)
    ap.add_argument("--variant", default="ttt-discover", choices=list(ABLATIONS))
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--groups", type=int, default=2)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--sandbox", default="", help="bwrap, docker or none (default: what the platform uses)")
    ap.add_argument("--case-budget", type=float, default=0.2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--model", default=None)
    ap.add_argument("--gguf-file", default=None)
    ap.add_argument("--endpoint", default=None)
    ap.add_argument("--endpoint-model", default=None)
    ap.add_argument("--max-new-tokens", type=int, default=1024)
    a = ap.parse_args(argv)
    llm = LLMOptions(
        endpoint=a.endpoint,
        endpoint_model=a.endpoint_model,
        model=a.model,
        gguf_file=a.gguf_file,
        max_new_tokens=a.max_new_tokens,
    )
    run = make_run(
        a.problem,
        a.device,
        a.policy,
        steps=a.steps,
        groups=a.groups,
        rollouts=a.rollouts,
        seed=a.seed,
        variant=a.variant,
        out_dir=a.out,
        sandbox=a.sandbox,
        case_budget_s=a.case_budget,
        workers=a.workers,
        llm=llm,
    )

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

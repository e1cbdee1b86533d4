"""TTT-Discover against its ablations at the same number of judged candidates.

    .venv/bin/python -m agents.bench --problem trimul --device cpu --rollouts 96 --seeds 3

For each seed and each method (TTT-Discover, best-of-N, reuse without training) it runs the offline policy
with `rollouts` candidates in all (steps x groups x rollouts per group) judged by the runner in benchmark
mode, and prints the best score found and its speed-up over the reference (the seed program, judged the same
way). A maximum over many noisy measurements flatters, so at the end every run's best and the reference are
judged again head to head (`--confirm-rounds` rounds, a fresh secret seed each) and the medians compared:
those are the figures to hold the methods to. A benchmark may be split over sittings (`--first-seed`, the
same `--out`): each run's row is saved as it finishes, and `--confirm-only` judges head to head every row
saved in `--out`. Identical code is judged once per benchmark and its
measurement shared by every run that samples it (`--no-share` judges every run's candidates afresh): the methods then compare on
common measurements, and the benchmark costs the number of distinct kernels, not of candidates.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from agents.loop import step_secret
from agents.runs import make_run
from agents.verifier import Evaluation, RunnerVerifier
from runner.judge.timing import geometric_mean
from runner.report import format_time

METHODS = ("ttt-discover", "best-of-n", "reuse-no-training")


class SharedEvaluations:
    """A verifier that judges each distinct code once and hands its measurement to every later asker, so
    that the benchmark costs the number of distinct kernels, not of candidates. A second opinion
    (`evaluate_again`, the loop's re-judging of a reading that would lead) is a measurement of its own: the
    k-th time a run asks again for a code it gets that code's k-th second opinion, judged when no run took
    it yet."""

    def __init__(self, inner: RunnerVerifier) -> None:
        self.inner = inner
        self.readings: dict[str, list[Evaluation]] = {}  # code -> its first reading, then second opinions
        self.unit_s = inner.unit_s
        self.new_run()

    def new_run(self) -> None:
        self.judged = 0  # candidates asked for by this run
        self.asked_again: dict[str, int] = {}  # code -> second opinions this run has had

    def evaluate(self, codes: list[str], secret_seed: int) -> list[Evaluation]:
        return self._readings(codes, {c: 0 for c in codes}, secret_seed)

    def evaluate_again(self, codes: list[str], secret_seed: int) -> list[Evaluation]:
        wanted = {c: self.asked_again.get(c, 0) + 1 for c in codes}
        self.asked_again.update(wanted)
        return self._readings(codes, wanted, secret_seed)

    def _readings(self, codes: list[str], wanted: dict[str, int], secret_seed: int) -> list[Evaluation]:
        self.judged += len(codes)
        todo = [c for c in dict.fromkeys(codes) if len(self.readings.get(c, ())) <= wanted[c]]
        for code, ev in zip(todo, self.inner.evaluate(todo, secret_seed), strict=True):
            self.readings.setdefault(code, []).append(ev)
        out = []
        for c in codes:
            ev = self.readings[c][wanted[c]]
            reward = (self.unit_s / ev.score_s) if ev.passed and self.unit_s else ev.reward
            out.append(Evaluation(ev.verdict, ev.message, ev.score_s, reward, ev.cases))
        return out


def confirm(verifier: RunnerVerifier, reference_code: str, rows: list[dict], rounds: int) -> None:
    """Judge the reference and every run's best again, head to head: `rounds` rounds, each with a fresh
    secret seed and the kernels in a new order, so that drift of the machine over the benchmark touches
    them all alike. A run's best during its search is a maximum over noisy measurements, which flatters
    it; these medians do not. Fills each row's confirmed_s and confirmed_speedup."""
    codes = list(dict.fromkeys([reference_code] + [r["best_code"] for r in rows if r["best_code"]]))
    times: dict[str, list[float]] = {c: [] for c in codes}
    for k in range(rounds):
        order = codes[k % len(codes) :] + codes[: k % len(codes)]
        for code, ev in zip(order, verifier.evaluate(order, step_secret(4242 + k, 10_000)), strict=True):
            if ev.passed:
                times[code].append(ev.score_s)
    median = {c: statistics.median(t) for c, t in times.items() if t}
    reference_s = median.get(reference_code)
    print(f"\nhead to head, {rounds} rounds: the reference {format_time(reference_s)} (median)")
    for row in rows:
        row["confirmed_s"] = median.get(row["best_code"])
        found = row["confirmed_s"]
        row["confirmed_speedup"] = reference_s / found if found and reference_s else None


def _geomean(values) -> float:
    """The geometric mean of speed-ups, a missing one counting as (almost) nothing."""
    return geometric_mean([max(v or 0.0, 1e-9) for v in values]) or 0.0


def _save_results(
    path: Path, unit_s: float | None, results: list[dict], reference_code: str | None = None
) -> None:
    """Write this invocation's rows into results.json, keeping the rows of other seeds or methods that an
    earlier invocation on the same folder wrote (a benchmark split over several sittings)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = {(r["method"], r["seed"]) for r in results}
    earlier = json.loads(path.read_text()) if path.exists() else {}
    kept = [r for r in earlier.get("runs", []) if (r["method"], r["seed"]) not in mine]
    runs = sorted(kept + results, key=lambda r: (r["seed"], r["method"]))
    saved = {
        "unit_s": unit_s,
        "reference_code": reference_code or earlier.get("reference_code"),
        "runs": runs,
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(saved, indent=1))
    tmp.replace(path)  # a benchmark stopped mid-write keeps its earlier rows


def print_table(unit_s: float | None, results: list[dict]) -> None:
    """Each method's speed-ups per seed, as searched and head to head, and who beat whom."""
    seeds = sorted({r["seed"] for r in results})
    methods = list(dict.fromkeys(r["method"] for r in results))
    print(f"\nreference (seed program): {format_time(unit_s)}")
    print(
        f"{'method':>18}  "
        + "  ".join(f"seed {s:<11}" for s in seeds)
        + "  geo-mean speed-up (searched / head to head)"
    )
    for method in methods:
        rows = [r for r in results if r["method"] == method]
        cells = "  ".join(f"{(r['speedup'] or 0):.2f}x/{_confirmed(r)}" for r in rows)
        head_to_head = (
            f"{_geomean(r.get('confirmed_speedup') for r in rows):.2f}x"
            if all("confirmed_speedup" in r for r in rows)
            else "not confirmed"
        )
        print(f"{method:>18}  {cells}  {_geomean(r['speedup'] for r in rows):.2f}x / {head_to_head}")
    if "ttt-discover" in methods and "best-of-n" in methods:
        by_seed = {(r["method"], r["seed"]): r for r in results}
        both = [s for s in seeds if ("ttt-discover", s) in by_seed and ("best-of-n", s) in by_seed]
        for key, what in (("speedup", "as searched"), ("confirmed_speedup", "head to head")):
            judged = [s for s in both if all(key in by_seed[m, s] for m in ("ttt-discover", "best-of-n"))]
            wins = sum(
                (by_seed["ttt-discover", s].get(key) or 0) > (by_seed["best-of-n", s].get(key) or 0)
                for s in judged
            )
            print(f"TTT-Discover beats best-of-N on {wins} of {len(judged)} seeds ({what})")


def _confirmed(row: dict) -> str:
    """A row's head-to-head speed-up: '-' where it was not confirmed, 'none' where its best never passed."""
    if "confirmed_speedup" not in row:
        return "-"
    return f"{row['confirmed_speedup']:.2f}x" if row["confirmed_speedup"] else "none"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--problem", default="trimul")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--rollouts", type=int, default=96, help="judged candidates per run, in all")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="run seeds first-seed .. first-seed + seeds - 1 (to split a benchmark)",
    )
    ap.add_argument("--groups", type=int, default=2, help="starts per step")
    ap.add_argument("--per-group", type=int, default=8, help="candidates per start")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--sandbox", default="", help="bwrap, docker or none (default: what the platform uses)")
    ap.add_argument("--case-budget", type=float, default=0.2, help="judge seconds per benchmark case")
    ap.add_argument("--workers", type=int, default=1, help="runner jobs at once (timing noise grows)")
    ap.add_argument("--no-share", action="store_true", help="judge identical code again in every run")
    ap.add_argument(
        "--no-confirm", action="store_true", help="skip re-judging the bests beside the reference"
    )
    ap.add_argument("--confirm-rounds", type=int, default=3, help="head-to-head rounds at the end")
    ap.add_argument(
        "--confirm-only",
        action="store_true",
        help="run nothing: judge head to head every run saved in --out's results.json",
    )
    ap.add_argument("--out", default=None, help="folder for each run's saved state and results.json")
    args = ap.parse_args(argv)
    if args.confirm_only and not args.out:
        ap.error("--confirm-only needs --out, the folder whose results.json holds the runs")
    if args.confirm_only and not (Path(args.out) / "results.json").exists():
        ap.error(f"no benchmark results in {args.out}: run the benchmark with --out {args.out} first")

    per_step = args.groups * args.per_group
    steps = max(1, args.rollouts // per_step)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    inner = RunnerVerifier(
        args.problem, args.device, sandbox=args.sandbox, case_budget_s=args.case_budget, workers=args.workers
    )
    results_path = Path(args.out) / "results.json" if args.out else None
    if args.confirm_only:
        assert results_path is not None
        saved = json.loads(results_path.read_text())
        confirm(inner, saved["reference_code"], saved["runs"], args.confirm_rounds)
        _save_results(results_path, saved["unit_s"], saved["runs"], saved["reference_code"])
        print(f"runner jobs: {inner.judged}")
        print_table(saved["unit_s"], saved["runs"])
        return 0
    shared = None if args.no_share else SharedEvaluations(inner)
    print(
        f"{args.problem} on {args.device}: {steps} steps x {args.groups} groups x {args.per_group} candidates = "
        f"{steps * per_step} judged candidates per run; methods {', '.join(methods)}; seeds {args.seeds}",
        flush=True,
    )
    started = time.monotonic()
    results = []
    unit_s = None
    reference_code = None
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    for seed in seeds:
        for method in methods:
            verifier = (
                shared
                if shared is not None
                else RunnerVerifier(
                    args.problem,
                    args.device,
                    sandbox=args.sandbox,
                    case_budget_s=args.case_budget,
                    workers=args.workers,
                )
            )
            if shared is not None:
                shared.new_run()
            out_dir = Path(args.out) / f"{method}-seed{seed}" if args.out else None
            run = make_run(
                args.problem,
                args.device,
                "offline",
                steps=steps,
                groups=args.groups,
                rollouts=args.per_group,
                seed=seed,
                variant=method,
                out_dir=out_dir,
                verifier=verifier,
            )
            t0 = time.monotonic()
            best = run.run(
                on_step=lambda r, d, m=method, s=seed: print(
                    f"  [{m} seed {s}] step {r.step}: mean reward {r.mean_reward:.3f}, max {r.max_reward:.3f}, "
                    f"best {r.best_reward:.3f} ({format_time(r.best_runtime_s)}), {r.passed}/{r.candidates} passed",
                    flush=True,
                )
            )
            unit_s = unit_s or verifier.unit_s
            reference_code = reference_code or run.seed_sources[0][0]
            row = {
                "method": method,
                "seed": seed,
                "best_s": best.runtime_s if best else None,
                "speedup": (unit_s / best.runtime_s) if best and best.runtime_s else None,
                "best_code": best.code if best else None,
                "candidates": sum(r.candidates for r in run.records),
                "best_program": best.meta.get("program") if best else None,
                "seconds": time.monotonic() - t0,
            }
            results.append(row)
            print(
                f"{method:>18} seed {seed}: best {format_time(row['best_s'])} = {row['speedup'] or 0:.2f}x the reference "
                f"({row['candidates']} candidates, {row['seconds']:.0f} s)",
                flush=True,
            )
            if results_path:
                _save_results(results_path, unit_s, results, reference_code)
    if results and not args.no_confirm:
        confirm(inner, reference_code, results, args.confirm_rounds)
    print(f"\nrunner jobs: {inner.judged}; wall time {time.monotonic() - started:.0f} s")
    print_table(unit_s, results)
    if results_path:
        _save_results(results_path, unit_s, results, reference_code)
    return 0


if __name__ == "__main__":
    sys.exit(main())

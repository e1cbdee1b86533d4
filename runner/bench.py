"""Benchmarks of the judge itself; they print figures, which docs/benchmarks.md keeps with their commands.

    python -m runner.bench fidelity --device cpu [--runs 5] [--problems vectoradd,matmul]
    python -m runner.bench floor      (this CPU's copy bandwidth and fp32 matmul, for runner/floors.py)

`fidelity` sets the judge's per-call time against timeit (CPU) or triton.testing.do_bench (GPU), warm and
cold, and gives the leaderboard score's spread over --runs."""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
import timeit

import torch

from runner.caller import execute
from runner.problem import list_problems, load_problem
from runner.spec import JobSpec


def reference_as_submission(name: str) -> str:
    return load_problem(name).reference_as_submission


COLD_BYTES = 128 << 20  # four times this machine's L3 (32 MiB): rotating through this much misses the caches


def independent_time(problem, case, device: str, threads: int, hand_over: bool, cold: bool = False) -> float:
    """Seconds per call of the reference, measured in this process.

    With hand_over, each call's output is also copied into a buffer of its own, as the contestant copies
    what custom_kernel returns into the judge's output slot (a kernel that writes into a buffer of its input
    skips that). With cold, the calls rotate through distinct inputs (and output buffers) that together
    exceed the last-level cache, as the judge's fresh input for every call does: the CPU analogue of
    do_bench's L2 flush. Without it every call reuses one warm input, which flatters memory-bound kernels.
    """
    from runner.wire.transport import arena_bytes, tensors_of

    ref = problem.load_reference()
    first = ref.generate_input(**case.params, seed=case.seed, device=device)
    per_call = arena_bytes(first) * (2 if hand_over else 1)
    count = max(2, min(64, -(-COLD_BYTES // max(per_call, 1)))) if cold else 1
    datas = [first] + [
        ref.generate_input(**case.params, seed=case.seed + i, device=device) for i in range(1, count)
    ]
    sample = tensors_of(ref.ref_kernel(first))
    slots = [[torch.empty_like(t) for t in sample] for _ in datas] if hand_over else None
    turn = itertools.count()

    def call():
        i = next(turn) % count
        out = ref.ref_kernel(datas[i])
        if slots is not None:
            for slot, t in zip(slots[i], tensors_of(out), strict=True):
                slot.copy_(t)

    if device == "cuda":
        import triton.testing

        return triton.testing.do_bench(call, warmup=50, rep=200) * 1e-3
    torch.set_num_threads(threads)
    timer = timeit.Timer(call)
    number, _ = timer.autorange()  # at least 0.2 s per repeat
    return statistics.median(timer.repeat(repeat=5, number=number)) / number


def fidelity(args) -> None:
    names = args.problems.split(",") if args.problems else list_problems()
    print(
        f"fidelity on {args.device}: judge per-call mean / independent measurement, and score spread over {args.runs} runs"
    )
    print(
        f"{'case':44s} {'judge':>10s} {'timeit':>10s} {'ratio':>6s} {'+hand-over':>11s} {'ratio':>6s}"
        f" {'cold+hand-over':>15s} {'ratio':>6s}"
    )
    for name in names:
        problem = load_problem(name)
        source = reference_as_submission(name)
        scores = []
        reports = []
        for _ in range(args.runs):
            report = execute(
                JobSpec(
                    problem=name,
                    source=source,
                    mode="leaderboard",
                    device=args.device,
                    threads=args.threads,
                    case_budget_s=args.case_budget,
                    sandbox=args.sandbox,
                    allow_unisolated=args.sandbox == "none",  # asked for by name, as the CLI's flag does
                )
            )
            if report.verdict != "passed":
                print(f"{name}: the reference did not pass: {report.verdict}: {report.message}")
                break
            scores.append(report.score_s)
            reports.append(report)
        if not scores:
            continue
        for case in problem.cases("benchmark", args.device):
            # the median over the runs of the case's median window: one run's figure drifts with the machine
            judged = statistics.median(
                c.stats.median
                for r in reports
                for c in r.cases
                if c.id == case.id and c.kind == "benchmark" and c.stats and c.stats.median is not None
            )
            alone = independent_time(problem, case, args.device, args.threads, hand_over=False)
            handed = independent_time(problem, case, args.device, args.threads, hand_over=True)
            cold = independent_time(problem, case, args.device, args.threads, hand_over=True, cold=True)
            note = "" if cold >= (1e-3 if args.device == "cpu" else 1e-4) else "  (below the target's size)"
            print(
                f"{case.id:44s} {judged * 1e3:8.3f}ms {alone * 1e3:8.3f}ms {judged / alone:6.3f}"
                f" {handed * 1e3:9.3f}ms {judged / handed:6.3f} {cold * 1e3:13.3f}ms {judged / cold:6.3f}{note}"
            )
        print(summary_line(name, reports))


def summary_line(name: str, reports: list) -> str:
    """The score, its spread over the runs, the handshake (CPU only), and what the CPU charge did to the
    honest reference: how many timed windows cost their CPU time rather than their wall time, and the
    scored cases' median over their wall-clock median."""
    scores = [r.score_s for r in reports]
    cv = statistics.pstdev(scores) / statistics.mean(scores) if len(scores) > 1 else 0.0
    line = f"{name}: leaderboard score {statistics.mean(scores) * 1e3:.3f} ms, spread (CV) {cv * 100:.2f} % over {len(scores)} runs"
    # The interval's coverage (issue 30): how often the next run's score lies inside this run's 95 % interval.
    pairs = [(a, b) for a, b in zip(reports[:-1], reports[1:], strict=True) if a.score_low_s is not None]
    if pairs:
        held = sum(a.score_low_s <= b.score_s <= a.score_high_s for a, b in pairs)
        widths = sorted(
            (a.score_high_s - a.score_low_s) / 2 / a.score_s for a in reports if a.score_low_s is not None
        )
        line += f"; the next run inside this run's 95 % interval {held} of {len(pairs)} times"
        line += f" (half-widths {widths[0] * 100:.1f} to {widths[-1] * 100:.1f} %)"
    if reports[0].handshake_s:
        line += f"; handshake {reports[0].handshake_s * 1e6:.0f} us"
    timed = [c.stats for r in reports for c in r.cases if c.stats]
    if any(s.cpu_median is not None for s in timed):
        charged = sum(s.charged_windows for s in timed)
        ratio = max(s.median / s.wall_median for s in timed)
        line += f"; CPU charge: {charged} of {sum(s.windows for s in timed)} windows, worst case {ratio:.3f}x its wall time"
    return line


def floor(_args) -> None:
    torch.set_num_threads(torch.get_num_threads())
    a = torch.empty(64 << 20, dtype=torch.uint8)
    b = torch.empty_like(a)
    b.copy_(a)
    t = min(timeit.repeat(lambda: b.copy_(a), number=5, repeat=5)) / 5
    print(f"copy bandwidth: {2 * a.numel() / t / 1e9:.1f} GB/s (read + write of 64 MiB)")
    x = torch.randn(2048, 2048)
    x @ x
    start = time.perf_counter()
    for _ in range(5):
        x @ x
    t = (time.perf_counter() - start) / 5
    print(f"fp32 matmul: {2 * 2048**3 / t / 1e9:.1f} GFLOP/s with {torch.get_num_threads()} threads")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m runner.bench")
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fidelity")
    f.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    f.add_argument("--runs", type=int, default=5)
    f.add_argument("--threads", type=int, default=1)
    f.add_argument("--case-budget", type=float, default=None)
    f.add_argument("--problems", default="")
    f.add_argument(
        "--sandbox", choices=["", "bwrap", "docker", "none"], default="", help="default: the platform's"
    )
    sub.add_parser("floor")
    args = parser.parse_args()
    {"fidelity": fidelity, "floor": floor}[args.command](args)


if __name__ == "__main__":
    main()

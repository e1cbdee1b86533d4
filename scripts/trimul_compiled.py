"""Eager against compiled trimul programs on this CPU, in-process: per benchmark case, the reference, two
programs of the agents' space (the five projections fused into one matmul, and the best program known by
hand, scripts/trimul_ceiling.py) run eagerly and under torch.compile (compile.mode=inductor), one thread,
interleaved call by call in rounds, medians. The compile (the first call of each shape) is timed apart.
docs/benchmarks.md ("trimul with compiled programs").

    .venv/bin/python scripts/trimul_compiled.py [--rounds 5] [--calls 10] [--archive RUN/archive.json]

With --archive, also the best state of an agent run's archive, as found and with its compile step flipped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import types

import torch

from agents.programs import Program, program_space
from runner.problem import load_problem

FUSED = ["fuse:lp+lg", "fuse:lp+rp", "fuse:lp+rg", "fuse:lp+og"]
BEST_KNOWN = FUSED + [
    "proj.lp.layout=hidden",
    "norm_in.affine=fold",
    "product.form=hidden",
    "product.impl=bmm",
    "gate.inplace=True",
    "mask.mode=skip_if_ones",
    "out_gate.inplace=True",
    "out_proj.impl=mm",
]


def module(code: str) -> types.ModuleType:
    m = types.ModuleType("candidate")
    exec(compile(code, "candidate.py", "exec"), m.__dict__)
    return m


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=10, help="timed calls per kernel per round")
    ap.add_argument("--archive", default=None, help="an agent run's archive.json: its best program too")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    space = program_space("trimul", "cpu")
    problem = load_problem("trimul")
    reference = problem.load_reference()
    kernels = {"reference": reference.ref_kernel}
    for name, chain in (("fused", FUSED), ("best known", BEST_KNOWN)):
        kernels[f"{name}, eager"] = module(space.render(space.chain(chain))).custom_kernel
        compiled = module(space.render(space.chain([*chain, "compile.mode=inductor"])))
        kernels[f"{name}, compiled"] = compiled.custom_kernel
        kernels[f"{name}, compiled"].module = compiled  # type: ignore[attr-defined]
    if args.archive:
        states = json.loads(open(args.archive).read())["states"]
        best = Program.from_json(max(states, key=lambda s: s["reward"])["meta"]["program"])
        print(f"archive best: {best.describe()}")
        for mode in ("eager", "inductor"):
            m = module(space.render(best.set("compile", mode=mode)))
            label = "archive best, " + ("compiled" if mode == "inductor" else "eager")
            kernels[label] = m.custom_kernel
            kernels[label].module = m  # type: ignore[attr-defined]
    per_case: dict[str, list[float]] = {k: [] for k in kernels}
    for case in problem.cases("benchmark", "cpu"):
        data = reference.generate_input(**case.params, seed=case.seed, device="cpu")
        for name, kernel in kernels.items():
            t0 = time.perf_counter()
            kernel(data)  # the warm-up; for a compiled program, the compile of this shape
            if name.endswith("compiled"):
                assert not kernel.module._compile_failed, f"{name} fell back to eager"  # type: ignore[attr-defined]
                print(f"{case.id}: {name} compiled in {time.perf_counter() - t0:.1f} s", flush=True)
        times: dict[str, list[float]] = {k: [] for k in kernels}
        for _ in range(args.rounds):
            for _ in range(args.calls):
                for name, kernel in kernels.items():
                    t0 = time.perf_counter()
                    kernel(data)
                    times[name].append(time.perf_counter() - t0)
        medians = {k: statistics.median(v) for k, v in times.items()}
        for k, m in medians.items():
            per_case[k].append(m)
        print(
            f"{case.id}: "
            + ", ".join(
                f"{k} {m * 1e3:.2f} ms ({medians['reference'] / m:.2f}x)" for k, m in medians.items()
            ),
            flush=True,
        )
    geo = {k: statistics.geometric_mean(v) for k, v in per_case.items()}
    print("\ngeometric mean over the benchmark cases:")
    for k, g in geo.items():
        print(f"  {k:22s} {g * 1e3:7.2f} ms  {geo['reference'] / g:.2f}x the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How fast an fp32 trimul can be on this CPU, measured: per benchmark case, the reference, the best program
of the agents' program space known by hand (the rewrites below), and the matrix products alone that no fp32
program can skip (the five projections as one matmul, the triangle product as one bmm, the output
projection), each at one thread in this process, median of many calls, interleaved in rounds. The products
alone bound the speed-up of any program that keeps fp32 maths; the layer norms, gates and the mask add to
them. docs/benchmarks.md ("How far an fp32 trimul can go on this CPU").

    .venv/bin/python scripts/trimul_ceiling.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import types

import torch

from agents.programs import program_space
from runner.sandbox import RUNNER_ROOT

BEST_KNOWN = [  # fused, hidden-major projections with the input norm's affine folded in, a hidden-form bmm
    "fuse:lp+lg",
    "fuse:lp+rp",
    "fuse:lp+rg",
    "fuse:lp+og",
    "proj.lp.layout=hidden",
    "norm_in.affine=fold",
    "product.form=hidden",
    "product.impl=bmm",
    "gate.inplace=True",
    "mask.mode=skip_if_ones",
    "out_gate.inplace=True",
    "out_proj.impl=mm",
]


def median_s(fn, reps: int = 40) -> float:
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[reps // 2]


def products_only(data):
    """The matrix products of the module on inputs of its shapes, nothing else."""
    x, _mask, w, config = data
    bs, n, _, d = x.shape
    h = config["hidden_dim"]
    rows = x.reshape(-1, d)
    weights = torch.randn(5 * h, d)
    left, right = torch.randn(h * bs, n, n), torch.randn(h * bs, n, n)
    out_w = w["to_out.weight"].t()
    y = torch.randn(bs * n * n, h)

    def run():
        torch.mm(weights, rows.t())
        torch.bmm(left, right.transpose(1, 2))
        torch.mm(y, out_w)

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    sys.path.insert(0, str(RUNNER_ROOT / "problems/trimul"))
    import problem  # noqa: E402  (the problem folder's own modules, as the judge imports them)
    import reference

    space = program_space("trimul", "cpu")
    module = types.ModuleType("best_known")
    exec(space.render(space.chain(BEST_KNOWN)), module.__dict__)
    names = ("reference", "best known", "products only")
    logs: dict[str, list[float]] = {k: [] for k in names}
    for case in problem.BENCHMARKS["cpu"]:
        data = reference.generate_input(**case, device="cpu")
        calls = {
            "reference": lambda data=data: reference.ref_kernel(data),
            "best known": lambda data=data: module.custom_kernel(data),
            "products only": products_only(data),
        }
        best = {k: min(median_s(calls[k]) for _ in range(args.rounds)) for k in names}
        label = f"seqlen={case['seqlen']} bs={case['bs']} dim={case['dim']}"
        print(f"{label:28s}" + "".join(f"  {k} {best[k] * 1e3:.2f} ms" for k in names))
        for k in names:
            logs[k].append(math.log(best[k]))
    mean = {k: math.exp(sum(v) / len(v)) for k, v in logs.items()}
    print(
        f"geometric mean: reference {mean['reference'] * 1e3:.2f} ms; best known "
        f"{mean['reference'] / mean['best known']:.2f}x; the products alone {mean['reference'] / mean['products only']:.2f}x"
    )


if __name__ == "__main__":
    main()

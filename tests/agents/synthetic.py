"""A synthetic verifier for testing the loop's mechanics fast: runtime is a fixed function of the program.

It stands in for the judge only where the judge's cost would dominate a unit test; the tests of the real
path use agents.verifier.RunnerVerifier / LocalVerifier. It reads the program from the first line of the
rendered trimul module (agents.programs.header) and multiplies the factors of its features.
"""

import hashlib
import math
import re

from agents.verifier import Evaluation, reward_of

# Relative cost of features of a trimul program on an imaginary machine; None: the program fails the check.
# The fast programs need several rewrites at once (fused, hidden-major projections, a hidden-form bmm ...).
FACTORS = {
    "norm_in.affine=fold": 0.9,
    "norm_in.impl=manual": 1.1,
    "gate.inplace=True": 0.9,
    "mask.mode=skip_if_ones": 0.95,
    "product.form=hidden": 0.9,
    "product.impl=bmm": 0.9,
    "product.impl=matmul": 0.95,
    "product.block=8": 1.1,
    "product.precision=bf16": 1.3,
    "product.precision=fp16": None,
    "norm_out.impl=manual": 1.05,
    "loop_in.chunk=256": 0.9,
    "loop_in.chunk=1024": 0.8,
    "loop_in.chunk=4096": 0.95,
    "loop_out.chunk=256": 1.1,
    "proj.lp.layout=hidden": 0.95,
    "proj.rp.layout=hidden": 0.95,
    **{f"proj.{p}.precision=bf16": 1.1 for p in ("lp", "lg", "rp", "rg", "og")},
    **{f"proj.{p}.precision=fp16": None for p in ("lp", "lg", "rp", "rg", "og")},
}
FUSED = 0.95  # per projection that shares another's matmul


def features(code):
    """The features of the program named on the module's first line."""
    line = code.splitlines()[0]
    out = []
    for op, attrs in re.findall(r"([\w.]+)\(([^)]*)\)", line.split("program:", 1)[1]):
        out += [f"{op}.{kv}" for kv in attrs.split(",")]
    return out


def runtime(code):
    t = 0.01
    for f in features(code):
        if re.fullmatch(r"proj\.(\w+)\.with=(\w+)", f) and f.split(".")[1] != f.split("=")[1]:
            t *= FUSED
            continue
        factor = FACTORS.get(f, 1.0)
        if factor is None:
            return None
        t *= factor
    return t


class SyntheticVerifier:
    def __init__(self, noise=0.02):
        self.unit_s = None
        self.noise = noise
        self.judged = 0

    def evaluate(self, codes, secret_seed):
        out = []
        for code in codes:
            self.judged += 1
            t = runtime(code)
            if t is None:
                out.append(Evaluation("failed", "values differ from the reference", None))
                continue
            h = int.from_bytes(hashlib.sha256(f"{secret_seed}{code}".encode()).digest()[:4], "little")
            t *= math.exp(self.noise * (h / 2**32 - 0.5))
            out.append(Evaluation("passed", "", t, reward_of(t, True, self.unit_s)))
        return out

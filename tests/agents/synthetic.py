"""A synthetic verifier for testing the loop's mechanics fast: runtime is a fixed function of the design.

It stands in for the judge only where the judge's cost would dominate a unit test; the tests of the real
path use agents.verifier.RunnerVerifier / LocalVerifier.
"""

import hashlib
import math
import re

from agents.verifier import Evaluation, reward_of

# Relative cost of each design value on an imaginary machine; the product is the runtime. Some values fail.
FACTORS = {
    "proj": {"separate": 1.0, "fused": 0.8},
    "norm_in": {"affine": 1.0, "folded": 0.9, "manual": 1.2},
    "rows": {"0": 1.0, "256": 0.9, "1024": 0.7, "4096": 0.8},
    "layout": {"row": 1.0, "hidden": 0.85, "hidden_direct": 0.75},
    "product": {"einsum": 1.0, "bmm": 0.9},
    "channel_block": {"0": 1.0, "16": 1.05, "64": 0.95},
    "precision": {"fp32": 1.0, "bf16": 1.3, "fp16": None},  # None: fails the check
    "mask": {"multiply": 1.0, "skip_if_ones": 0.95},
    "inplace": {"False": 1.0, "True": 0.9},
    "norm_out": {"functional": 1.0, "manual": 1.1},
}


class SyntheticVerifier:
    def __init__(self, noise=0.02):
        self.unit_s = None
        self.noise = noise
        self.judged = 0

    def runtime(self, code):
        design = dict(re.findall(r"(\w+)=(\S+?)[ .]", code.splitlines()[0]))
        t = 0.01
        for k, table in FACTORS.items():
            f = table[design[k]]
            if f is None:
                return None
            t *= f
        return t

    def evaluate(self, codes, secret_seed):
        out = []
        for code in codes:
            self.judged += 1
            t = self.runtime(code)
            if t is None:
                out.append(Evaluation("failed", "values differ from the reference", None))
                continue
            h = int.from_bytes(hashlib.sha256(f"{secret_seed}{code}".encode()).digest()[:4], "little")
            t *= math.exp(self.noise * (h / 2**32 - 0.5))
            out.append(Evaluation("passed", "", t, reward_of(t, True, self.unit_s)))
        return out

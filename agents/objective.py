"""The training objectives of the loop: per-group advantages from rewards.

TTT-Discover trains on the entropic objective (docs/agents.md): within a group of N rollouts from one start,
sample n gets the leave-one-out advantage

    A_n = exp(beta (r_n - r_max)) / (Z_-n + eps) - 1,   Z_-n = mean_{m != n} exp(beta (r_m - r_max)),

with beta chosen per group so that KL(softmax(beta r) || uniform) = ln 2. Because beta is solved for, the
advantages do not change when the rewards are shifted or scaled. The ablations swap in the expected-reward
objective (A_n = r_n - mean r) or a constant beta. A KL penalty to the initial policy is subtracted per
decision (token) by `penalised_advantages`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

EPS = 1e-8
TARGET_KL = math.log(2.0)
BETA_CAP = 1e6
HALVINGS = 60
KL_PENALTY = 0.1  # lambda

OBJECTIVES = ("entropic", "expected", "constant_beta")


def _softmax(values: Sequence[float], beta: float) -> list[float]:
    top = max(values)
    w = [math.exp(beta * (v - top)) for v in values]
    z = sum(w)
    return [x / z for x in w]


def kl_to_uniform(rewards: Sequence[float], beta: float) -> float:
    """KL(q_beta || uniform over the group), q_beta = softmax(beta * rewards)."""
    n = len(rewards)
    return sum(q * math.log(n * q) for q in _softmax(rewards, beta) if q > 0.0)


def solve_beta(rewards: Sequence[float], target: float = TARGET_KL) -> float:
    """The beta >= 0 for which KL(softmax(beta r) || uniform) = target, by bisection.

    The upper bound grows from 1 by doubling until the KL reaches the target (capped at 1e6), then 60
    halvings of the bracket. The KL rises with beta towards ln(N / #argmax), so a group that cannot reach
    the target (all equal, or too many ties at the top) gets the cap.
    """
    if len(rewards) < 2 or max(rewards) == min(rewards):
        return BETA_CAP
    hi = 1.0
    while kl_to_uniform(rewards, hi) < target and hi < BETA_CAP:
        hi = min(hi * 2.0, BETA_CAP)
    if kl_to_uniform(rewards, hi) < target:
        return BETA_CAP
    lo = 0.0
    for _ in range(HALVINGS):
        mid = 0.5 * (lo + hi)
        if kl_to_uniform(rewards, mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def entropic_advantages(rewards: Sequence[float], beta: float | None = None) -> list[float]:
    """Leave-one-out entropic advantages of one group; beta solved for KL = ln 2 unless given."""
    n = len(rewards)
    if n < 2 or max(rewards) == min(rewards):
        return [0.0] * n  # nothing to prefer: exp(0)/1 - 1 = 0 exactly
    if beta is None:
        beta = solve_beta(rewards)
    top = max(rewards)
    w = [math.exp(beta * (r - top)) for r in rewards]
    total = sum(w)
    return [w_n / ((total - w_n) / (n - 1) + EPS) - 1.0 for w_n in w]


def expected_advantages(rewards: Sequence[float]) -> list[float]:
    """The expected-reward ablation: A_n = r_n - mean(r) (REINFORCE with the group mean as baseline)."""
    if not rewards:
        return []
    mean = sum(rewards) / len(rewards)
    return [r - mean for r in rewards]


def group_advantages(rewards: Sequence[float], objective: str = "entropic", beta: float = 2.0) -> list[float]:
    """Advantages of one group under `objective` (one of OBJECTIVES); `beta` is used by constant_beta."""
    if objective == "entropic":
        return entropic_advantages(rewards)
    if objective == "constant_beta":
        return entropic_advantages(rewards, beta=beta)
    if objective == "expected":
        return expected_advantages(rewards)
    raise ValueError(f"unknown objective {objective!r}; expected one of {', '.join(OBJECTIVES)}")


def penalised_advantages(
    advantage: float, logp: Sequence[float], logp_init: Sequence[float], lam: float = KL_PENALTY
) -> list[float]:
    """Per-decision advantages of one sample with the KL penalty to the initial policy subtracted.

    Each decision (a rewrite or the number of rewrites, or a token for the LLM policy) t of the sample gets
    A - lam * (log pi(a_t) - log pi_0(a_t)); the sum of the second term over a sample is the usual
    single-sample estimate of KL(pi || pi_0).
    """
    return [advantage - lam * (lp - l0) for lp, l0 in zip(logp, logp_init, strict=True)]

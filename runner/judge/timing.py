"""The stopping rule and the statistics of a case, from windows timed by the judge's clock."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

import numpy as np

from runner.spec import Stats

# A case's energy is reported only over this much metered time at least: NVML's energy counter moves in
# steps of its power sampling (tens of milliseconds), so a short span reads as zero or as a whole step.
ENERGY_MIN_S = 0.1

# The score's uncertainty: a percentile bootstrap over each case's windows, carried through the score.
# Seeded, so that the same windows always give the same interval (a report can be checked by anyone).
CONFIDENCE = 0.95
RESAMPLES = 2000
BOOTSTRAP_SEED = 20261207
FEW_WINDOWS = 5  # below this many windows a case's interval is little more than its min and max
NOISY = 0.05  # an interval wider than +-5 % of the score is called noisy in the report's words


@dataclass
class StoppingRule:
    """When a case has been timed enough: once its median's 95 % interval is narrow (half its width at most
    `target` of the median) over at least `settle_windows` windows; else at its budget or call cap, which
    apply from `min_windows` on. The time a case takes is then what its own noise asks for: a steady case
    ends in a few windows, a noisy one uses its budget."""

    target: float  # the median's 95 % interval, half its width over the median: 0.25 % on GPU, 1 % on CPU
    budget_s: float  # seconds a case may use
    max_calls: int
    min_windows: int = 3  # no case ends before this many windows, whatever its budget
    # nor ends early on its interval with fewer (fewer are rough). Stopping once an interval looks narrow
    # favours draws whose windows agree by chance: simulated (600 cases a row, skewed windows), the interval
    # at the stop held the true median in 93 % of cases at 1 % noise a window and 87 % at 3 %, against 92 to
    # 94 % for a fixed count; waiting for 10 windows, or for two narrow checks running, bought 0 to 2 points.
    settle_windows: int = FEW_WINDOWS


def check_due(windows: int, checked_at: int) -> bool:
    """Whether the interval is due again at `windows` windows, last computed at `checked_at`: every window
    below 16, then each time the windows have grown by an eighth, so that its cost (a seeded bootstrap of
    RESAMPLES medians) stays a small part of a window however many there are."""
    return windows - checked_at >= max(1, windows // 8)


@dataclass
class Windows:
    """Per-window (seconds, calls). Each window gives one sample of the per-call time.

    `seconds` is what a window is charged: its wall time by the judge's clock, or, on a CPU, the CPU time
    the contestant's processes used in it over the job's thread allowance when that is more. `wall` and
    `cpu` keep both figures as evidence."""

    seconds: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    joules: list[float] = field(default_factory=list)  # per metered window (GPU): joules on the clock
    metered: list[tuple[int, float]] = field(default_factory=list)  # and its (calls, seconds metered)
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    checked_at: int = 0  # windows when the stopping rule last computed the interval

    def add(
        self,
        seconds: float,
        calls: int,
        energy: tuple[float, float] | None = None,
        cpu_s: float | None = None,
    ) -> None:
        """One window: its seconds on the clock for `calls` calls, its energy (joules on the clock, seconds
        metered: GPU only) and the CPU seconds charged (CPU only)."""
        self.wall.append(seconds)
        if cpu_s is not None:
            self.cpu.append(cpu_s)
            seconds = max(seconds, cpu_s)
        self.seconds.append(seconds)
        self.calls.append(calls)
        if energy is not None:
            self.joules.append(energy[0])
            self.metered.append((calls, energy[1]))

    @property
    def per_call(self) -> list[float]:
        return [s / c for s, c in zip(self.seconds, self.calls, strict=True)]

    @property
    def mean(self) -> float:
        return sum(self.seconds) / sum(self.calls)

    @property
    def median(self) -> float:
        return statistics.median(self.per_call)

    def std(self) -> float:
        xs = self.per_call
        if len(xs) < 2:
            return 0.0
        m = sum(xs) / len(xs)
        return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))

    def done(self, rule: StoppingRule, spent_s: float = 0.0) -> bool:
        """At least min_windows always; then stop at the budget (the case's seconds spent, judge's work
        included) or the call cap, or, from settle_windows on, once the median's 95 % interval (the one the
        report gives) is within the target of the median: computed when check_due says."""
        n = len(self.seconds)
        if n < rule.min_windows:
            return False
        if max(spent_s, sum(self.seconds)) >= rule.budget_s or sum(self.calls) >= rule.max_calls:
            return True
        if n < rule.settle_windows or not check_due(n, self.checked_at):
            return False
        self.checked_at = n
        return self.narrow(rule.target)

    def narrow(self, target: float) -> bool:
        """Whether the median's 95 % interval is at most `target` of the median either side of it."""
        low, high = median_interval(self.per_call)
        median = self.median
        return low is not None and high is not None and median > 0 and (high - low) / 2 <= target * median

    def joules_per_call(self) -> float | None:
        if not self.joules or sum(s for _, s in self.metered) < ENERGY_MIN_S:
            return None
        return sum(self.joules) / sum(c for c, _ in self.metered)

    def stats(self, flops: float, nbytes: float) -> Stats:
        mean = self.mean
        median = self.median
        per_call = self.per_call
        std = self.std()
        low, high = median_interval(per_call)
        return Stats(
            n=sum(self.calls),
            windows=len(self.seconds),
            mean=mean,
            std=std,
            stderr=std / math.sqrt(len(per_call)),
            min=min(per_call),
            max=max(per_call),
            # Rates from the median, the figure the score is made of, so that a case's FLOP/s and a
            # ranking's (their geometric mean over the scored cases) agree with the times shown beside them.
            flops_per_s=flops / median if flops and median > 0 else None,
            bytes_per_s=nbytes / median if nbytes and median > 0 else None,
            joules_per_call=self.joules_per_call(),
            median=median,
            median_low=low,
            median_high=high,
            per_window=per_call,
            wall_median=statistics.median(w / c for w, c in zip(self.wall, self.calls, strict=True)),
            cpu_median=statistics.median(t / c for t, c in zip(self.cpu, self.calls, strict=True))
            if self.cpu
            else None,
            charged_windows=sum(t > w for t, w in zip(self.cpu, self.wall, strict=False)),
        )


def geometric_mean(values: list[float]) -> float | None:
    if not values or any(v <= 0 for v in values):
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def score(medians: list[float], ranking_by: str = "geom") -> float | None:
    """A run's score from its benchmark cases' median times, in their order: the geometric mean (every
    problem written here), or, for a problem imported from GPU MODE whose task.yml says so, the arithmetic
    mean or the last case alone."""
    if not medians or any(v <= 0 for v in medians):
        return None
    if ranking_by == "last":
        return medians[-1]
    if ranking_by == "mean":
        return sum(medians) / len(medians)
    return geometric_mean(medians)


def _resampled_medians(per_window: list[float], rng: np.random.Generator) -> np.ndarray:
    """RESAMPLES medians of `per_window` drawn with replacement: the bootstrap distribution of the median."""
    x = np.asarray(per_window, dtype=np.float64)
    return np.median(x[rng.integers(0, len(x), size=(RESAMPLES, len(x)))], axis=1)


def _percentiles(values: np.ndarray) -> tuple[float, float]:
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def median_interval(per_window: list[float]) -> tuple[float | None, float | None]:
    """The 95 % interval of a case's median per-call time; (None, None) with fewer than two windows."""
    if len(per_window) < 2:
        return None, None
    return _percentiles(_resampled_medians(per_window, np.random.default_rng(BOOTSTRAP_SEED)))


def score_interval(
    cases: list[list[float]], ranking_by: str = "geom"
) -> tuple[float | None, float | None, str]:
    """The score's 95 % interval from its cases' windows (per-call seconds), and a note in words when the
    windows were too few or too spread: each resample draws every case's windows anew, within the case, and
    scores the resampled medians exactly as `score` does, so the interval is of the one score."""
    if not cases or any(len(w) < 2 for w in cases):
        return None, None, "too few timed windows to say how sure the score is"
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    medians = np.stack([_resampled_medians(w, rng) for w in cases], axis=1)  # RESAMPLES x cases
    if np.any(medians <= 0):  # GPU windows read 0 once the hand-over's cost is taken off a tiny kernel
        return None, None, "some windows read no time once the hand-over's cost was taken off, so no interval"
    if ranking_by == "last":
        scores = medians[:, -1]
    elif ranking_by == "mean":
        scores = medians.mean(axis=1)
    else:
        scores = np.exp(np.log(medians).mean(axis=1))
    low, high = _percentiles(scores)
    centre = score([statistics.median(w) for w in cases], ranking_by) or 0.0
    notes = []
    fewest = min(len(w) for w in cases)
    if fewest < FEW_WINDOWS:
        notes.append(f"only {fewest} timed windows in a case, so the interval is rough")
    if centre > 0 and (high - low) / 2 > NOISY * centre:
        notes.append(
            f"the times were noisy: the 95 % interval spans \u00b1{50 * (high - low) / centre:.0f} %"
        )
    return low, high, "; ".join(notes)

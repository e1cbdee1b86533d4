"""Judging candidates: every one goes through the runner, like a person's submission.

`RunnerVerifier` hands each candidate to `runner.execute` in benchmark mode, with the sandbox and the checks
that people get and a fresh secret seed per step. Its reward is 0 unless the verdict is `passed`, else
`unit_s / score_s`: proportional to 1 / (geometric-mean runtime), with unit_s the reference's runtime so that
a reward reads as "times faster than the reference".

`check_locally` runs a program the agent rendered from its own IR on the problem's small test inputs
before it is judged: a candidate that computes the wrong thing gets reward 0 without costing a runner job.

`LocalVerifier` is the fast one for tests and quick experiments: it uses the same problem folder (cases,
input generator, checker) but runs the candidate inside this process and times it with perf_counter. It has
none of the runner's isolation or anti-cheat checks, so the loop never uses it for anything that is ranked.
"""

from __future__ import annotations

import functools
import math
import statistics
import time
import types
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


@dataclass
class Evaluation:
    """The judge's word on one candidate."""

    verdict: str  # a runner Verdict
    message: str
    score_s: float | None  # geometric mean seconds over the benchmark cases; None unless passed
    reward: float = 0.0
    cases: list[dict[str, Any]] = field(default_factory=list)  # id, status, mean_s

    @property
    def passed(self) -> bool:
        return self.verdict == "passed" and self.score_s is not None and self.score_s > 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Verifier(Protocol):
    unit_s: float | None

    def evaluate(self, codes: list[str], secret_seed: int) -> list[Evaluation]: ...


def reward_of(score_s: float | None, passed: bool, unit_s: float | None) -> float:
    """0 for a failure; else unit_s / score_s (1 / score_s when there is no unit yet)."""
    if not passed or not score_s or score_s <= 0 or not math.isfinite(score_s):
        return 0.0
    return (unit_s or 1.0) / score_s


class RunnerVerifier:
    """Candidates judged by runner.execute in benchmark mode; identical code within one call judged once."""

    def __init__(
        self,
        problem: str,
        device: str = "cpu",
        sandbox: str = "",
        case_budget_s: float | None = 0.2,
        threads: int = 1,
        workers: int = 1,
        unit_s: float | None = None,
    ) -> None:
        self.problem = problem
        self.device = device
        self.sandbox = sandbox
        self.case_budget_s = case_budget_s
        self.threads = threads
        self.workers = workers
        self.unit_s = unit_s
        self.judged = 0  # runner jobs started, for the logs and the benchmark

    def _one(self, code: str, secret_seed: int, mode: str = "benchmark") -> Evaluation:
        from runner import execute
        from runner.spec import JobSpec

        self.judged += 1
        report = execute(
            JobSpec(
                problem=self.problem,
                source=code,
                mode=mode,
                device=self.device,
                sandbox=self.sandbox,
                secret_seed=secret_seed,
                threads=self.threads,
                case_budget_s=self.case_budget_s,
            )
        )
        passed = report.passed and report.score_s is not None
        return Evaluation(
            verdict=report.verdict,
            message=report.message,
            score_s=report.score_s if passed else None,
            reward=reward_of(report.score_s, passed, self.unit_s),
            cases=[
                {"id": c.id, "kind": c.kind, "status": c.status, "mean_s": c.stats.mean if c.stats else None}
                for c in report.cases
            ],
        )

    def evaluate(self, codes: list[str], secret_seed: int) -> list[Evaluation]:
        distinct = list(dict.fromkeys(codes))
        if self.workers > 1:
            with ThreadPoolExecutor(self.workers) as pool:
                results = list(pool.map(lambda c: self._one(c, secret_seed), distinct))
        else:
            results = [self._one(c, secret_seed) for c in distinct]
        by_code = dict(zip(distinct, results, strict=True))
        return [by_code[c] for c in codes]

    def judge(self, code: str, secret_seed: int, mode: str = "leaderboard") -> Evaluation:
        """One candidate in another mode (the final entry is re-judged in leaderboard mode)."""
        return self._one(code, secret_seed, mode=mode)


class LocalVerifier:
    """In-process judging on the problem's own cases and checker: fast, not isolated, never ranked."""

    def __init__(
        self,
        problem: str,
        device: str = "cpu",
        repeats: int = 3,
        case_filter: Any = None,
        unit_s: float | None = None,
        threads: int = 1,
    ) -> None:
        from runner.problem import load_problem

        self.problem = load_problem(problem)
        self.reference = self.problem.load_reference()
        self.device = device
        self.repeats = repeats
        self.cases = [
            c for c in self.problem.cases("benchmark", device) if case_filter is None or case_filter(c)
        ]
        self.unit_s = unit_s
        self.threads = threads
        self.judged = 0

    def _one(self, code: str, secret_seed: int) -> Evaluation:
        import torch

        from runner.problem import call_seed

        self.judged += 1
        torch.set_num_threads(self.threads)
        module = types.ModuleType("candidate")
        try:
            exec(compile(code, "candidate.py", "exec"), module.__dict__)
            kernel = module.custom_kernel
        except Exception as exc:  # a candidate that does not import is an error, not a crash
            return Evaluation("error", f"import failed: {exc}", None)
        means, rows = [], []
        for case in self.cases:
            times = []
            for call in range(self.repeats + 1):
                seed = call_seed(secret_seed, case.seed, call)
                data = self.reference.generate_input(**case.params, seed=seed, device=self.device)
                try:
                    t0 = time.perf_counter()
                    out = kernel(data)
                    elapsed = time.perf_counter() - t0
                    # checked on a fresh copy of the inputs, in case the candidate changed them
                    fresh = self.reference.generate_input(**case.params, seed=seed, device=self.device)
                    ok, why = _check(self.reference, fresh, out)
                except Exception as exc:
                    return Evaluation("error", f"{case.id}: {type(exc).__name__}: {exc}", None)
                if not ok:
                    return Evaluation("failed", f"{case.id}: {why}", None)
                if call:  # the first call is the warm-up
                    times.append(elapsed)
            mean = statistics.fmean(times)
            means.append(mean)
            rows.append({"id": case.id, "kind": "benchmark", "status": "passed", "mean_s": mean})
        score = math.exp(statistics.fmean(math.log(m) for m in means))
        return Evaluation("passed", "", score, reward_of(score, True, self.unit_s), rows)

    def evaluate(self, codes: list[str], secret_seed: int) -> list[Evaluation]:
        cache: dict[str, Evaluation] = {}
        for c in codes:
            if c not in cache:
                cache[c] = self._one(c, secret_seed)
        return [cache[c] for c in codes]


def _check(reference: Any, data: Any, output: Any) -> tuple[bool, str]:
    result = reference.check_implementation(data, output)
    if isinstance(result, tuple):
        return bool(result[0]), str(result[1]) if len(result) > 1 else ""
    if isinstance(result, str):
        return (not result), result
    return bool(result), ""


@functools.cache
def _local_cases(problem: str) -> tuple[Any, list[Any]]:
    from runner.problem import load_problem

    p = load_problem(problem)
    return p.load_reference(), p.cases("test", "cpu")


def check_locally(problem: str, source: str, device: str = "cpu", seed: int = 0) -> str | None:
    """None if `source` computes what `problem` asks on the small shapes of its CPU test cases (inputs from
    the problem's own generator on `device`, outputs by its own checker, in this process), else the reason
    it does not.

    Only for programs the agent rendered itself from its program space: they are never a contestant's
    code, so running them here is as safe as the agent itself. Everything else goes to the runner.

    A compiled program (agents.programs.compile_wrapper) is checked by its chain run eagerly, the same
    maths: compiling it here for every test shape would cost the agent tens of seconds a candidate, and
    the runner checks every output of the compiled module anyway."""
    import torch

    from agents.programs import EAGER
    from runner.problem import call_seed

    reference, cases = _local_cases(problem)
    module = types.ModuleType("candidate")
    try:
        exec(compile(source, "candidate.py", "exec"), module.__dict__)
        kernel = getattr(module, EAGER, None) or module.custom_kernel
        for case in cases:
            data = reference.generate_input(**case.params, seed=call_seed(seed, case.seed, 0), device=device)
            with torch.no_grad():
                out = kernel(data)
            fresh = reference.generate_input(**case.params, seed=call_seed(seed, case.seed, 0), device=device)
            ok, why = _check(reference, fresh, out)
            if not ok:
                return f"{case.id}: {why}"
    except Exception as exc:  # a rendered program that raises is a wrong program, not a crash of the agent
        return f"{type(exc).__name__}: {exc}"
    return None

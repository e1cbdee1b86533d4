"""The two documents that cross the runner's boundary: a JobSpec in, a RunReport out.

Both are plain JSON so that the platform never imports the runner's internals, let alone a
submission: it hands over a JobSpec and stores the RunReport it gets back.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from runner.vocabulary import Mode, Verdict, passed  # noqa: F401 (Verdict: re-exported, as runner.spec.Verdict)

MODES = tuple(Mode)
DEVICES = ("cpu", "cuda")
SANDBOXES = ("bwrap", "docker", "none")


@dataclass
class JobSpec:
    """What the platform asks the runner to do with one submission."""

    problem: str
    source: str  # the submission's source text
    mode: str = "test"
    device: str = "cpu"  # cpu | cuda
    sandbox: str = ""  # bwrap | docker | none; "": what the platform uses (runner.sandbox.default_sandbox)
    # The run's secret seed. It reaches the judge only, over the judge's stdin; never argv or env.
    secret_seed: int | None = None
    threads: int = 1  # the contestant's CPU thread count, fixed per job
    device_kind: str | None = None  # e.g. "h100", "cpu"; derived from the machine when None
    filename: str = "submission.py"
    case_budget_s: float | None = None  # judge seconds per benchmark case; None: the mode's default
    call_s: float | None = None  # time limit of one call (and of the import); None: the mode's default
    # Leaderboard mode without a sandbox is refused unless this is set: meant for the runner's own tests.
    allow_unisolated: bool = False
    # A run whose score enters the rankings (the platform's leaderboard mode): refused where this host would
    # judge it more weakly than the tested default (runner/readiness.py). A local leaderboard run is a check,
    # not a rank: it runs, and its report says how it was judged.
    ranked: bool = False


@dataclass
class Stats:
    """Timing of one case, in seconds per call, from the judge's clock."""

    n: int  # timed calls
    windows: int  # handshakes: each window times several calls at once
    mean: float
    std: float  # spread of the per-call time across windows
    stderr: float  # standard error of the mean
    min: float  # fastest window, per call
    max: float  # slowest window, per call
    flops_per_s: float | None = None
    bytes_per_s: float | None = None
    joules_per_call: float | None = None
    # The median window's per-call time: what the score uses. A window is a complete account of its
    # calls, so no shifting of work between calls moves it; a scheduler hiccup in one window does not.
    median: float | None = None
    # Its 95 % interval (a bootstrap over the windows, runner/judge/timing.py), and each window's per-call
    # time, in the order timed: the evidence the median and its interval come from.
    median_low: float | None = None
    median_high: float | None = None
    per_window: list[float] = field(default_factory=list)
    # Evidence of the CPU charge (CPU only): the median window's wall time per call, its CPU time per call
    # over the thread allowance, and how many windows cost their CPU time because it was the larger.
    wall_median: float | None = None
    cpu_median: float | None = None
    charged_windows: int = 0


@dataclass
class CaseResult:
    id: str  # pytest-style id, e.g. "vectoradd[size=128-seed=4242]"
    kind: str  # "test" or "benchmark" (the secret run's benchmarks say "secret")
    status: str  # passed | failed | error | timeout | flagged | skipped
    message: str = ""
    stats: Stats | None = None
    floor_s: float | None = None  # the physical floor of this case on this device


@dataclass
class RunReport:
    verdict: str
    message: str = ""  # one line, in the user's words, saying why when not passed
    problem: str = ""
    mode: str = ""
    device: str = ""
    score_s: float | None = None  # geometric mean over benchmark cases of the median per-call time
    # The score's 95 % interval, from each case's windows resampled (runner/judge/timing.py), and what
    # limits it in words when the windows were too few or too spread to trust the score's digits.
    score_low_s: float | None = None
    score_high_s: float | None = None
    score_note: str = ""
    cases: list[CaseResult] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)  # {"kind", "message", "evidence"}
    env: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)
    handshake_s: float | None = None  # calibrated fixed cost of one go/done round trip
    scan: list[dict[str, Any]] = field(default_factory=list)  # static red flags: evidence, never a verdict
    isolation: str = ""  # which sandbox ran the contestant, and what that means
    logs: str = ""  # the contestant's output, capped; never believed
    error_line: int | None = None  # a syntax error's line in the source, when that is why it was rejected
    # True when the run says nothing about the submission: the judge itself or its host failed. A worker
    # gives such a run back for another attempt instead of recording it as the submission's verdict.
    platform_fault: bool = False
    # Profile mode: per case {"case", "text", "csv", "ncu", "ncu_csv"}, the per-operator table the judge checked and
    # capped (runner/judge/profile.py); empty in the other modes.
    profiles: list[dict[str, str]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """runner.vocabulary.passed on this report: the verdict, its flags, its cases and its fault."""
        return passed(
            self.verdict,
            flags=len(self.flags),
            statuses=tuple(c.status for c in self.cases),
            platform_fault=self.platform_fault,
        )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunReport:
        d = dict(d)
        cases = []
        for c in d.pop("cases", []):
            c = dict(c)
            stats = c.pop("stats", None)
            cases.append(CaseResult(**c, stats=Stats(**stats) if stats else None))
        return cls(**d, cases=cases)


def report_problems(data: Any) -> list[str]:
    """What in `data` (a report's JSON, parsed) does not match the RunReport schema, in words; [] when it
    matches. The schema is the dataclasses above: every field's type, no field unknown or missing, and the
    verdict and each case's status one of the words the platform knows."""
    from runner.vocabulary import CaseStatus

    problems = _shape_problems(data, RunReport, "report")
    verdict = data.get("verdict") if isinstance(data, dict) else None
    if isinstance(verdict, str) and verdict not in tuple(Verdict):
        problems.append(f"report.verdict: {verdict!r} is not a verdict")
    cases = data.get("cases") if isinstance(data, dict) else None
    for i, case in enumerate(cases if isinstance(cases, list) else []):
        status = case.get("status") if isinstance(case, dict) else None
        if isinstance(status, str) and status not in tuple(CaseStatus):
            problems.append(f"report.cases[{i}].status: {status!r} is not a case status")
    return problems


def _shape_problems(value: Any, hint: Any, where: str) -> list[str]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        hints = typing.get_type_hints(hint)
        fields = {f.name: f for f in dataclasses.fields(hint)}
        problems = [f"{where}.{k}: not a field" for k in value if k not in fields]
        for name, f in fields.items():
            if name in value:
                problems += _shape_problems(value[name], hints[name], f"{where}.{name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                problems.append(f"{where}.{name}: missing")
        return problems
    if origin in (typing.Union, types.UnionType):  # an optional field: X | None
        if value is None and type(None) in args:
            return []
        (kind,) = [a for a in args if a is not type(None)]
        return _shape_problems(value, kind, where)
    if origin is list and isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _shape_problems(v, args[0], f"{where}[{i}]")]
    if origin is dict and isinstance(value, dict):
        return [p for k, v in value.items() for p in _shape_problems(v, args[1], f"{where}.{k}")]
    if origin in (list, dict) or not _conforms(value, hint):
        return [f"{where}: expected {getattr(hint, '__name__', hint)}, got {type(value).__name__}"]
    return []


def _conforms(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if hint is float:  # JSON has one kind of number
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)

"""A pytest plugin: check a kernel locally with the very harness the server uses (registered through the
package's `pytest11` entry point, so it is there wherever the package is installed).

    pytest --problem trimul --submission my_kernel.py [--mode benchmark] [--device cuda]

One item per case; the session passes only when the run did (runner.vocabulary.passed, docs/report.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.report import format_time, render
from runner.spec import DEVICES, MODES, SANDBOXES, JobSpec, RunReport

_REPORT_KEY = pytest.StashKey[RunReport]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kernelboard", "judge a kernel as the leaderboard does")
    group.addoption("--problem", help="the problem to judge against, e.g. trimul")
    group.addoption("--submission", type=Path, help="the file that defines custom_kernel(data)")
    group.addoption("--mode", choices=MODES, default="test", help="test (default), benchmark or leaderboard")
    group.addoption(
        "--device", choices=DEVICES, default=None, help="cpu or cuda (default: cuda if available)"
    )
    group.addoption(
        "--sandbox",
        choices=SANDBOXES,
        default="",
        dest="kb_sandbox",
        help="bwrap, docker or none (default: what the platform uses)",
    )
    group.addoption("--case-budget", type=float, default=None, dest="kb_case_budget")


class KernelCaseFailed(Exception):
    pass


class KernelCase(pytest.Item):
    def __init__(self, *, case_id: str, kind: str, **kwargs):
        super().__init__(**kwargs)
        self.case_id, self.kind = case_id, kind

    def runtest(self) -> None:
        report = _report(self.config)
        result = next((c for c in report.cases if c.id == self.case_id and c.kind == self.kind), None)
        if result is None:
            raise KernelCaseFailed(f"{report.verdict}: {report.message}")
        if result.stats:
            self.user_properties.append(("mean_s", result.stats.mean))
        if result.status == "skipped":
            pytest.skip(result.message)
        if result.status != "passed":
            raise KernelCaseFailed(f"{result.status}: {result.message}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, KernelCaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.config.getoption("submission"), None, f"{self.case_id} ({self.kind})"


def _device(config: pytest.Config) -> str:
    """--device, else cuda where a GPU is visible: the same answer for the cases collected and the run."""
    device = config.getoption("device")
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    return device


def _report(config: pytest.Config) -> RunReport:
    if _REPORT_KEY not in config.stash:
        from runner.caller import execute

        path: Path = config.getoption("submission")
        device = _device(config)
        config.stash[_REPORT_KEY] = execute(
            JobSpec(
                problem=config.getoption("problem"),
                source=path.read_bytes().decode("utf-8", errors="surrogateescape"),
                mode=config.getoption("mode"),
                device=device,
                sandbox=config.getoption("kb_sandbox"),
                case_budget_s=config.getoption("kb_case_budget"),
            )
        )
    return config.stash[_REPORT_KEY]


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """`--submission FILE` as two words leaves FILE looking like a path to collect; joined into one word,
    it is the option's value only, wherever the file lies."""
    for i in range(len(args) - 1):
        if args[i] in ("--submission", "--problem"):
            args[i : i + 2] = [f"{args[i]}={args[i + 1]}"]
            return pytest_load_initial_conftests(early_config, parser, args)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("problem") and not config.getoption("submission"):
        raise pytest.UsageError("--problem needs --submission FILE (the file that defines custom_kernel)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> bool | None:
    """With --problem, the session's items are the problem's cases, nothing else: no test file is
    collected or imported, wherever pytest runs and wherever the submission lies."""
    config = session.config
    problem = config.getoption("problem")
    if not problem:
        return None
    from runner.problem import load_problem
    from runner.vocabulary import CaseKind, case_plan

    try:
        loaded = load_problem(problem)
    except KeyError as exc:
        raise pytest.UsageError(str(exc.args[0])) from None
    submission: Path = config.getoption("submission")
    if not submission.is_file():
        raise pytest.UsageError(f"cannot read the submission {submission}")
    device = _device(config)
    mode = config.getoption("mode")
    session.items = [
        KernelCase.from_parent(session, name=f"{case.id}({kind})", case_id=case.id, kind=str(kind))
        for kind in case_plan(mode)
        for case in loaded.cases(CaseKind.BENCHMARK if kind == CaseKind.SECRET else kind, device)
    ]
    session.testscollected = len(session.items)
    config.hook.pytest_collection_finish(session=session)
    return True


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run's verdict decides the session, as it decides the command line's exit status: cases that all
    passed do not make a flagged run pass."""
    report = session.config.stash.get(_REPORT_KEY, None)
    if report is not None and not report.passed and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    if _REPORT_KEY not in config.stash:
        return
    report = config.stash[_REPORT_KEY]
    terminalreporter.section("kernelboard")
    terminalreporter.write_line(render(report))
    if report.score_s:
        terminalreporter.write_line(f"score: {format_time(report.score_s)}")
    if not report.passed:
        terminalreporter.write_line(f"the run did not pass: {report.verdict}: {report.message}", red=True)

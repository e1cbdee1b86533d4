"""Running hostile submissions and reading their reports: shared by the files of the hostile suite."""

from __future__ import annotations

import json
import os
import secrets

from runner import JobSpec, execute
from runner.sandbox import RUNNER_ROOT

CORRECT = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
QUICK = {"call_s": 10, "case_budget_s": 0.05}
SECRET = "kb-hostile-" + secrets.token_hex(8)  # planted in the platform's files and environment
SECRET_ENV = "KB_HOSTILE_PLATFORM_SECRET"

# A correct vectoradd kernel, after the attack's code: only the attack can make the submission fail.
_KERNEL = """

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def attack(code: str) -> str:
    """A hostile submission: `code`, which runs at import (and imports torch), then a correct custom_kernel."""
    return code + _KERNEL


def reading_each(paths: str) -> str:
    """Code that tries to read the start of each file of `paths` (a Python expression), printing READ and
    what it read, or why it could not."""
    return f"""
for path in {paths}:
    try:
        print("READ", path, open(path, "rb").read(64))
    except OSError as exc:
        print("blocked", path, exc)
"""


class Hostile:
    """Runs submissions through one backend and remembers whether any reached a sandbox."""

    def __init__(self, backend: str):
        self.backend = backend
        self.ran = False

    def __call__(self, source: str, *, mode: str = "test", limits: dict | None = None, **kw):
        """Judge `source`; `limits` lowers limits for this job only (through RUNNER_LIMITS, which the judge
        inherits), so that the correct submission run afterwards gets the normal ones."""
        spec = JobSpec(
            problem="vectoradd",
            source=source,
            mode=mode,
            device="cpu",
            sandbox=self.backend,
            **{**QUICK, **kw},
        )
        saved = os.environ.get("RUNNER_LIMITS")
        if limits:
            os.environ["RUNNER_LIMITS"] = json.dumps(limits)
        try:
            report = execute(spec)
        finally:
            if limits:
                if saved is None:
                    os.environ.pop("RUNNER_LIMITS", None)
                else:
                    os.environ["RUNNER_LIMITS"] = saved
        self.ran = self.ran or report.verdict != "rejected"
        return report


def describe(report) -> str:
    lines = [f"{report.verdict}: {report.message}"]
    lines += [f"  {c.id} {c.kind} {c.status} {c.message}" for c in report.cases]
    lines += [f"  flag {f['kind']}: {f['message']}" for f in report.flags]
    return "\n".join(lines) + "\n" + report.logs[-3000:]


def one_line(report) -> str:
    """The verdict's reason, checked to be one clear line."""
    assert report.message and "\n" not in report.message, describe(report)
    return report.message


def expect(report, verdict: str, *phrases: str) -> str:
    """Checks the report's verdict, and that its reason is one line holding each of `phrases`; the reason."""
    assert report.verdict == verdict, describe(report)
    message = one_line(report)
    for phrase in phrases:
        assert phrase in message, describe(report)
    return message


def expect_out_of_sight(report, backend: str) -> None:
    """The file the attack read last was not there to read (absent from bwrap's private root; under docker,
    a host path under /tmp meets the judge's /tmp, 0700), and nothing it read reached its output."""
    unreachable = ["No such file or directory"] + (["Permission denied"] if backend == "docker" else [])
    assert report.verdict == "error", describe(report)
    assert any(reason in one_line(report) for reason in unreachable), describe(report)
    assert SECRET not in report.logs and "READ" not in report.logs, describe(report)

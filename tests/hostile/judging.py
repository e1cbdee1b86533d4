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

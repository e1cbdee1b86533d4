"""The runner: everything that touches a submission. Depends on torch, triton and numpy only (no Django).

`execute(JobSpec) -> RunReport` is the whole interface the platform and the agents use.
"""

from runner.spec import CaseResult, JobSpec, RunReport, Stats, Verdict

__all__ = ["CaseResult", "JobSpec", "RunReport", "Stats", "Verdict", "execute"]


def execute(spec: JobSpec) -> RunReport:
    """Judge one submission as `spec` says and return its report. Never raises for a bad submission."""
    from runner.execute import execute as _execute

    return _execute(spec)

"""The runner: everything that touches a submission. Depends on torch, triton and numpy only (no Django).

`execute(JobSpec) -> RunReport` is the whole interface the platform and the agents use. Importing the
runner package imports no torch: the caller's process stays light, and submissions run elsewhere.
"""

from runner.dispatch import execute
from runner.spec import CaseResult, JobSpec, RunReport, Stats, Verdict

__all__ = ["CaseResult", "JobSpec", "RunReport", "Stats", "Verdict", "execute"]

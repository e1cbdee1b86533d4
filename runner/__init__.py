"""The runner: everything that touches a submission. Depends on torch, triton and numpy only (no Django).

`execute(JobSpec) -> RunReport` judges a submission. Importing the runner package imports no torch: the
caller's process stays light, and submissions run elsewhere. What else the platform and the agents may use
is `SURFACE`, below, held to by tests/runner/test_layout.py.
"""

from typing import TYPE_CHECKING, Any

from runner.spec import CaseResult, JobSpec, RunReport, Stats, Verdict

if TYPE_CHECKING:
    from runner.caller import execute

__all__ = ["CaseResult", "JobSpec", "RunReport", "Stats", "Verdict", "execute"]


def __getattr__(name: str) -> Any:
    """`execute` is imported when first asked for: the untrusted contestant, whose `python -m` imports this
    package first, then loads nothing of the caller's (tests/runner/test_layout.py)."""
    if name == "execute":
        from runner.caller import execute

        return execute
    raise AttributeError(f"module 'runner' has no attribute {name!r}")


# What the platform (leaderboard/) and the agents (agents/) may import from the runner: module -> names.
# Anything else is the runner's own, free to change without touching them.
SURFACE = {
    # judging, and the report's types
    "runner": {"execute", "readiness", "textsafe", "vocabulary", *__all__},
    "runner.wire": {"leash"},  # a worker holds its judge on a leash
    "runner.spec": {"CaseResult", "JobSpec", "RunReport", "Stats", "Verdict"},
    # the domain's words: modes, case kinds, device kinds, verdicts
    "runner.vocabulary": {
        "CaseKind",
        "DEVICE_KINDS",
        "Mode",
        "Verdict",
        "case_plan",
        "passed",  # the one decision whether a run passed: an agent judging on a server reads it too
        # the exploration tier's words (the platform's, never the runner's)
        "EXPLORE",
        "EXPLORE_LABEL",
        "JUDGING_QUEUES",
        "SUBMISSION_MODES",
        "judged_as",
        "judging_queue",
        "queue_device_kind",
    },
    # problems: the folders the site lists, and their inputs for the reference's page
    "runner.problem": {"call_seed", "list_problems", "load_problem", "problem_dirs"},
    "runner.reference_kernels": {"ImportRefused", "import_folder"},  # the import_problem command
    "runner.limits": {"MODE_LIMITS"},  # shown on the problem pages
    "runner.report": {
        "SCORE_DEFINITION",
        "format_interval",
        "format_progress",
        "format_rate",
        "format_score",
        "format_time",
        "profile_filename",
        "render",
        "write_profile_csvs",
    },
    # the one score's arithmetic, and the words of its uncertainty (the scoring page)
    "runner.judge.timing": {"geometric_mean", "CONFIDENCE", "FEW_WINDOWS", "NOISY"},
    "runner.sandbox": {"default_sandbox"},  # the settings' default backend
}

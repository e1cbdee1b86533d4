"""A fast trusted judge for the load tests (burst, broker restart), where the runner's few seconds per
submission would make the suite too slow for two cores. Workers use it with
RUNNER_EXECUTE=instant_judge:execute. It never runs the submission: it answers `passed` after
INSTANT_JUDGE_DELAY_S, and appends the sha256 of each source it judged to INSTANT_JUDGE_LOG, so that a
test can count how many times each submission was judged.

The kill test and the end-to-end tests use the real runner.
"""

import hashlib
import os
import time

from runner.spec import CaseResult, RunReport, Stats


def execute(spec) -> RunReport:
    time.sleep(float(os.environ.get("INSTANT_JUDGE_DELAY_S", "0")))
    log = os.environ.get("INSTANT_JUDGE_LOG")
    if log:
        with open(log, "a") as f:  # one short line per write: appends of several processes do not interleave
            f.write(hashlib.sha256(spec.source.encode()).hexdigest() + "\n")
    stats = Stats(n=10, windows=2, mean=1e-5, std=0.0, stderr=0.0, min=1e-5, max=1e-5)
    return RunReport(
        verdict="passed",
        problem=spec.problem,
        mode=spec.mode,
        device=spec.device,
        score_s=1e-5,
        cases=[CaseResult(id=f"{spec.problem}[instant]", kind="test", status="passed", stats=stats)],
    )


def explode(spec) -> RunReport:
    """A judge that fails for a reason of the platform's (a missing sandbox, a full disk)."""
    raise OSError("No space left on device")

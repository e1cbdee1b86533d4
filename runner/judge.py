"""The judge process: the trusted side of a run.

    python -m runner.judge < request.json > report.json

The request (the JobSpec, the job directory and the run seed) arrives on stdin: the seed is never in argv,
the environment or a file. The judge starts the contestant in its sandbox first, and only then imports
torch and the problem, so that the two processes' start-up overlaps.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import sys
import time
from pathlib import Path

from runner.limits import limits_for
from runner.process import Contestant
from runner.sandbox import Job
from runner.spec import JobSpec


def _make_non_dumpable() -> None:
    """No process of the same user may ptrace the judge or read its memory (/proc/PID/mem)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except OSError:
        pass


def main() -> None:
    _make_non_dumpable()
    request = json.loads(sys.stdin.read())
    spec = JobSpec(**request["spec"])
    job_dir = Path(request["job_dir"])
    limits = limits_for(spec.mode, spec.case_budget_s, spec.call_s)
    job = Job(
        dir=job_dir, submission=job_dir / spec.filename, scratch=job_dir / "scratch",
        device=spec.device, threads=spec.threads, limits=limits,
    )
    contestant = Contestant(job, spec.sandbox, limits, time.monotonic() + limits.wall_s)
    import torch

    from runner import envinfo
    from runner.judging import Judge

    # The judge's work (fresh inputs, the reference, checks) happens while the contestant is stopped, so
    # it may use every core this process is allowed: more checked calls fit in a case's budget.
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    judge = Judge(spec, job, contestant)
    report = judge.run(int(request["run_seed"]))
    report.env = envinfo.collect(spec.device, spec.threads)
    report.env["seed"] = envinfo.seed_hash(int(request["run_seed"]))
    report.env["device_kind"] = judge.kind
    if not math.isfinite(report.score_s or 0.0):
        report.score_s = None
    sys.stdout.write(report.to_json())
    sys.stdout.flush()


if __name__ == "__main__":
    main()

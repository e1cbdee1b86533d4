"""The judge process: the trusted side of a run.

    python -m runner.judge < request.json > report.json

The request (the JobSpec, the job directory, the run seed and the report key) arrives on stdin: neither
secret is ever in argv, the environment or a file. The report goes out on stdout in frames signed with the
key (runner/seal.py); anything else the judge's libraries print goes to stderr. The judge starts the
contestant in its sandbox first, and only then imports torch and the problem, so that the two processes'
start-up overlaps.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path

from runner import seal
from runner.limits import limits_for
from runner.process import Contestant
from runner.sandbox import Job
from runner.spec import JobSpec, RunReport, Verdict

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36


def _prctl(option: int, value: int) -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _private_report_stream() -> int:
    """A descriptor of its own for the signed frames; fd 1 becomes stderr, so that nothing a library prints
    lands in the report stream."""
    fd = os.dup(1)
    os.dup2(2, 1)
    return fd


def main() -> None:
    # No process of the same user may ptrace the judge or read its memory, descriptors or environment.
    _prctl(PR_SET_DUMPABLE, 0)
    # Whatever the contestant's processes do (double forks, setsid), they stay the judge's descendants:
    # an orphan is reparented here, where it is frozen and its CPU time charged like the rest.
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    out = _private_report_stream()
    request = json.loads(sys.stdin.read())
    key = bytes.fromhex(request.pop("key"))
    spec = JobSpec(**request["spec"])
    os.write(out, seal.frame(key, seal.STARTED))
    try:
        report = run_job(spec, Path(request["job_dir"]), int(request["run_seed"]))
    except Exception as exc:  # a fault of the judge itself, not of anything the contestant did
        traceback.print_exc()
        report = RunReport(
            verdict=Verdict.ERROR,
            message=f"the judge failed ({type(exc).__name__}: {exc}); this is a fault of "
            "the platform, not of the submission",
            problem=spec.problem,
            mode=spec.mode,
            device=spec.device,
            platform_fault=True,
        )
    payload = report.to_json().encode()
    frame = seal.frame(key, seal.REPORT, payload)
    while frame:
        frame = frame[os.write(out, frame) :]


def run_job(spec: JobSpec, job_dir: Path, run_seed: int) -> RunReport:
    limits = limits_for(spec.mode, spec.case_budget_s, spec.call_s)
    job = Job(
        dir=job_dir,
        submission=job_dir / spec.filename,
        scratch=job_dir / "scratch",
        device=spec.device,
        threads=spec.threads,
        limits=limits,
    )
    contestant = Contestant(job, spec.sandbox, limits, time.monotonic() + limits.wall_s)
    import torch

    from runner import envinfo
    from runner.judging import Judge

    # The judge's work (fresh inputs, the reference, checks) happens while the contestant is stopped, so
    # it may use every core this process is allowed: more checked calls fit in a case's budget.
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    judge = Judge(spec, job, contestant)
    report = judge.run(run_seed)
    report.env = envinfo.collect(spec.device, spec.threads)
    report.env["seed"] = envinfo.seed_hash(run_seed)
    report.env["device_kind"] = judge.kind
    report.env["contestant_threads"] = judge.threads
    if not math.isfinite(report.score_s or 0.0):
        report.score_s = None
    return report


if __name__ == "__main__":
    main()

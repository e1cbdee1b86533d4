"""The judge process: the trusted side of a run.

    python -m runner.judge < request.json > report.json

The request (JobSpec, job directory, run seed, report key) arrives on stdin, never argv, env or a file; the
report leaves on stdout in signed frames (runner/wire/seal.py). docs/harness.md, "Processes"."""

from __future__ import annotations

import ctypes
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path

from runner import textsafe
from runner.judge.blame import submissions_doing
from runner.judge.contestant_process import ContestantProcess
from runner.limits import Limits
from runner.sandbox import Job, freeze
from runner.spec import JobSpec, RunReport, Verdict
from runner.wire import leash, seal

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
_contestant_started = False  # from here on, a failure of the judge may be the submission's doing


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
    # The request is the first line; a worker that holds the leash keeps stdin open after it (runner/wire/leash.py).
    request = json.loads(sys.stdin.buffer.readline())
    if request.get("leash_s"):
        leash.watch(sys.stdin.fileno(), float(request.pop("leash_s")), int(request.pop("parent")))
    key = bytes.fromhex(request.pop("key"))
    spec = JobSpec(**request["spec"])
    _write(out, seal.frame(key, seal.STARTED))

    def on_case(done: int, total: int, result, kind_done: int, kind_total: int) -> None:
        # Each case as it finishes, signed like the report: progress for the caller to show, never a verdict.
        median = result.stats.median if result.stats else None
        median = median if median is not None and math.isfinite(median) else None
        case_id = textsafe.safe_text(result.id, 300)
        frame = seal.case_frame(
            key, done, total, case_id, result.status, result.kind, kind_done, kind_total, median
        )
        _write(out, frame)

    try:
        report = run_job(
            spec,
            Limits(**request["limits"]),
            Path(request["job_dir"]),
            int(request["run_seed"]),
            on_case,
            Path(request["cgroup"]) if request.get("cgroup") else None,
        )
    except Exception as exc:
        traceback.print_exc()
        # The platform's fault (run again), unless the contestant ran and exhausted what the judge needed
        blamed = submissions_doing(exc) if _contestant_started else None
        report = RunReport(
            verdict=Verdict.ERROR,
            message=blamed
            or f"the judge failed ({type(exc).__name__}: {exc}); this is a fault of "
            "the platform, not of the submission",
            problem=spec.problem,
            mode=spec.mode,
            device=spec.device,
            platform_fault=blamed is None,
            limits=request["limits"],
        )
    _write(out, seal.frame(key, seal.REPORT, _signable(report, spec)))


def _signable(report: RunReport, spec: JobSpec) -> bytes:
    """The report as it is signed: every string the contestant may have written made safe and the whole
    checked against its schema (runner/textsafe.py). One that fails the check is the judge's own bug:
    its verdict cannot be trusted, so it becomes a fault of the platform."""
    try:
        report = textsafe.safe_report(report)
    except textsafe.InvalidReport as exc:
        traceback.print_exc()
        report = RunReport(
            verdict=Verdict.ERROR,
            message=textsafe.safe_text(
                f"the judge made a report it cannot sign ({exc}); this is a fault of the platform, "
                "not of the submission"
            ),
            problem=spec.problem,
            mode=spec.mode,
            device=spec.device,
            platform_fault=True,
        )
    return report.to_json().encode()


def _write(fd: int, data: bytes) -> None:
    """All of it: a pipe may take a long frame in parts."""
    while data:
        data = data[os.write(fd, data) :]


def run_job(
    spec: JobSpec, limits: Limits, job_dir: Path, run_seed: int, on_case=None, cgroup: Path | None = None
) -> RunReport:
    job = Job(
        dir=job_dir,
        submission=job_dir / spec.filename,
        scratch=job_dir / "scratch",
        device=spec.device,
        threads=spec.threads,
        limits=limits,
        cgroup=cgroup,
    )
    global _contestant_started
    _contestant_started = True  # the sandbox starts it now: from here its doings can reach the judge
    contestant = ContestantProcess(job, spec.sandbox, limits, time.monotonic() + limits.wall_s)
    import torch

    from runner import readiness
    from runner.judge import envinfo
    from runner.judge.loop import Judge

    # The judge's work (fresh inputs, the reference, checks) happens while the contestant is stopped, so
    # it may use every core this process is allowed: more checked calls fit in a case's budget.
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    judge = Judge(spec, job, contestant, on_case)
    report = judge.run(run_seed, contestant.sandbox.note)
    report.env = envinfo.collect(spec.device, spec.threads)
    report.env["seed"] = envinfo.seed_hash(run_seed)
    report.env["device_kind"] = judge.kind
    report.env["contestant_threads"] = judge.threads
    if spec.device == "cpu":
        report.env["cpu_time_from"] = "cgroup" if judge.cgroup else "proc"
        if not judge.cgroup:  # the weaker path says so in words wherever the report is read
            report.isolation = f"{report.isolation} {readiness.PROC_SENTENCE}".strip()
        report.env["cpu_while_frozen_s"] = round(judge.cpu_while_frozen_s, 6)
        report.env["freeze_pauses"] = freeze.settle_pauses
        if judge.cgroup_refused:
            report.env["cgroup_refused"] = judge.cgroup_refused
    if not all(math.isfinite(x or 0.0) for x in (report.score_s, report.score_low_s, report.score_high_s)):
        report.score_s = report.score_low_s = report.score_high_s = None
    return report


if __name__ == "__main__":
    main()
    # The report is written and the contestant gone: skip the interpreter's teardown (a quarter of a
    # second with torch loaded, on every job).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)

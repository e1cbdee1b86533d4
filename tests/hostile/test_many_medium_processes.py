"""Attack: steer the kernel's OOM killer at the worker or the judge with many medium-sized processes, each
far below the per-process memory limit (RLIMIT_AS), together past what the job may use. Expected where the
job has a memory cgroup (bwrap as root): the OOM killer ends a process of the job, never the judge or this
worker; the judge reports, and the verdict names the job's memory limit. In docker the container's memory
limit plays that part. Lowered with RUNNER_LIMITS to 256 MiB to be safe and quick."""

import os

import pytest

from runner.sandbox import cgroup
from tests.hostile.judging import attack, expect

SOURCE = attack("""
import os
import time
import torch

helpers = []
for _ in range(12):
    pid = os.fork()
    if pid == 0:
        hog = b"x" * (48 << 20)  # written: resident, charged to the job
        time.sleep(600)
    helpers.append(pid)
pid, status = os.wait()  # the first helper to end: none ends unless killed
raise SystemExit(f"helper {pid} ended with status {status}")
""")


def _job_cgroup_here() -> bool:
    made = cgroup.create() if os.geteuid() == 0 else None
    if made is not None:
        cgroup.remove(made)
    return made is not None


def test_many_medium_processes_are_ended_inside_the_job(hostile, backend):
    if backend == "bwrap" and not _job_cgroup_here():
        pytest.skip("no job cgroup here (needs root and a writable cgroup v2 hierarchy)")
    report = hostile(SOURCE, limits={"job_memory_bytes": 256 << 20})
    assert not report.platform_fault
    if backend == "bwrap":
        expect(report, "error", "the job's memory limit of 256 MiB was reached")
        assert report.env["job_bounds"]["memory_bytes"] == 256 << 20
    else:
        assert report.verdict == "error", report.message

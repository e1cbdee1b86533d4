"""A worker judges as the tested default does (the job's cgroup, leased uids), or says why it will not
(runner/readiness.py); a leaderboard run is never charged from /proc unless the operator named that path;
a report charged from /proc says so in words. Real host checks: the cgroup probe makes and removes a
real cgroup; a parent that cannot be written is a real path the kernel refuses."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from runner import JobSpec, Verdict, execute, readiness
from runner.sandbox import RUNNER_ROOT

SOURCE = (RUNNER_ROOT / "problems" / "vectoradd" / "templates" / "pytorch.py").read_text()
UNWRITABLE = "/proc/kernelboard-no-cgroup-here"  # procfs: mkdir is refused whoever asks


@pytest.fixture
def no_cgroup(monkeypatch):
    """A host that gives the worker no job cgroup: its parent lies where nothing can be made."""
    monkeypatch.setenv("RUNNER_CGROUP_PARENT", UNWRITABLE)
    monkeypatch.delenv(readiness.SETTING, raising=False)


def test_a_cpu_worker_without_the_job_cgroup_is_refused_in_words(no_cgroup):
    why = readiness.why_not_ready("bwrap", "cpu")
    assert why is not None
    assert UNWRITABLE in why and "cannot make a cgroup" in why, why
    assert "RUNNER_CPU_ACCOUNTING=proc" in why, why  # and what to change


def test_a_cpu_worker_on_the_docker_backend_is_refused(monkeypatch):
    monkeypatch.delenv(readiness.SETTING, raising=False)
    why = readiness.why_not_ready("docker", "cpu")
    assert why and "RUNNER_SANDBOX=bwrap" in why and "RUNNER_CPU_ACCOUNTING=proc" in why, why


def test_no_sandbox_at_all_is_refused_whatever_the_operator_named(monkeypatch):
    monkeypatch.setenv(readiness.SETTING, "proc")
    assert "no sandbox is available" in (readiness.why_not_ready("", "cpu") or "")


def test_the_proc_path_named_by_the_operator_is_accepted(no_cgroup, monkeypatch):
    monkeypatch.setenv(readiness.SETTING, "proc")
    assert readiness.why_not_ready("bwrap", "cpu") is None
    assert readiness.why_not_ready("docker", "cpu") is None


@pytest.mark.skipif(os.geteuid() != 0, reason="the tested default is a root worker")
def test_this_root_host_with_cgroup_v2_is_ready(monkeypatch):
    monkeypatch.delenv("RUNNER_CGROUP_PARENT", raising=False)
    if readiness.cgroup_problem():
        pytest.skip(f"this host gives no job cgroup: {readiness.cgroup_problem()}")
    assert readiness.why_not_ready("bwrap", "cpu") is None


def test_a_worker_that_is_not_root_is_refused():
    if os.geteuid() != 0:
        why = readiness.why_not_ready("bwrap", "cpu")
    else:  # the same check, run as nobody
        probe = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
             "from runner import readiness; print(readiness.why_not_ready('bwrap', 'cpu'))"],
            cwd=RUNNER_ROOT, capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(RUNNER_ROOT)},
        )  # fmt: skip
        if probe.returncode != 0:
            pytest.skip(f"cannot run the interpreter as nobody here: {probe.stderr[-300:]}")
        why = probe.stdout
    assert "not root" in why and "lease a uid" in why, why


def test_a_gpu_worker_must_use_the_docker_backend():
    why = readiness.why_not_ready("bwrap", "cuda")
    assert why and "RUNNER_SANDBOX=docker" in why, why


def test_a_leaderboard_run_without_the_job_cgroup_is_refused_not_charged_from_proc(no_cgroup):
    report = execute(
        JobSpec(
            problem="vectoradd", source=SOURCE, mode="leaderboard", device="cpu", sandbox="bwrap", ranked=True
        )
    )
    assert report.verdict == Verdict.ERROR and report.platform_fault, report.message
    assert "needs the job's cgroup" in report.message and "RUNNER_CPU_ACCOUNTING=proc" in report.message
    assert not report.cases  # nothing of the submission ran


@pytest.mark.judge
def test_a_local_leaderboard_run_without_the_job_cgroup_runs_and_says_how_it_was_judged(no_cgroup):
    """Only the platform's ranked runs are refused: a competitor's own leaderboard-mode check (the command
    line, the pytest plugin, as a user without root) runs, and its report names the weaker path."""
    report = execute(
        JobSpec(problem="vectoradd", source=SOURCE, mode="leaderboard", device="cpu", sandbox="bwrap")
    )
    assert report.verdict == Verdict.PASSED, report.message
    assert readiness.PROC_SENTENCE in report.isolation, report.isolation


@pytest.mark.judge
def test_a_report_charged_from_proc_says_so_in_a_sentence(no_cgroup):
    report = execute(JobSpec(problem="vectoradd", source=SOURCE, mode="test", device="cpu", sandbox="bwrap"))
    assert report.verdict == Verdict.PASSED, report.message
    assert report.env["cpu_time_from"] == "proc"
    assert readiness.PROC_SENTENCE in report.isolation, report.isolation

"""Every environment variable the runner reads, in this one module, with its default and why it exists.
Read when asked, never at import: what an operator or a test sets applies to the next job.

The platform's own settings (RUNNER_EXECUTE among them) are Django's, in leaderboard/settings.py."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    default: str
    why: str


SETTINGS = {
    "RUNNER_SANDBOX": Setting(
        "", "the backend of a job that names none; unset: bwrap where installed, else docker"
    ),
    "RUNNER_SANDBOX_TOOL": Setting(
        "", "bwrap or unshare for the bwrap backend; unset: bwrap where installed"
    ),
    "RUNNER_SANDBOX_UID_BASE": Setting("61000", "the first uid leased to jobs (one per job at a time)"),
    "RUNNER_SANDBOX_UID_COUNT": Setting("64", "how many uids are leased: the jobs one host runs at once"),
    "RUNNER_SANDBOX_LOCK_DIR": Setting("/run/kernelboard-sandbox", "where the uid leases are locked"),
    "RUNNER_SANDBOX_NOTE": Setting(
        "", "docker: the host's words on the isolation, passed into the container"
    ),
    "RUNNER_CGROUP_PARENT": Setting("", "a delegated cgroup folder for the jobs' cgroups; unset: found"),
    "RUNNER_CPU_ACCOUNTING": Setting(
        "", "`proc` judges CPU time from /proc where no job cgroup exists, knowingly"
    ),
    "RUNNER_FORKSERVER": Setting("1", "0 starts every judge as its own process instead of forking it"),
    "RUNNER_LEASH_S": Setting("20", "seconds a judge lives on after its worker stopped answering"),
    "RUNNER_LIMITS": Setting("", "JSON overrides of the per-mode limits, for operators and tests"),
    "RUNNER_IMAGE": Setting("kernelboard-runner:latest", "the docker backend's runner image"),
    "RUNNER_IMAGE_DIGEST": Setting(
        "none (not in a container image)", "the image a judge runs in, for its report"
    ),
    "RUNNER_GPU": Setting(
        "", "docker: the GPU a job's container gets; unset: CUDA_VISIBLE_DEVICES's first, or 0"
    ),
}


def get(name: str) -> str:
    """The setting's value, or its default where it is unset or empty."""
    return os.environ.get(name) or SETTINGS[name].default

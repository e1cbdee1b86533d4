"""Where the contestant runs: choosing a backend (`get_sandbox`, `default_sandbox`) among docker (GPU
hosts), bwrap (hosts without Docker, the embedded default) and none (unit tests only). The interface is
runner/sandbox/base.py; docs/sandbox.md, "One interface, three backends", says how a job goes through one."""

from __future__ import annotations

import os

from runner import settings
from runner.sandbox.base import Sandbox
from runner.sandbox.job import MALLOC_TUNABLES, RUNNER_ROOT, Job, JudgeRun, OnOut, Process

__all__ = [
    "MALLOC_TUNABLES",
    "RUNNER_ROOT",
    "Job",
    "JudgeRun",
    "OnOut",
    "Process",
    "Sandbox",
    "default_sandbox",
    "get_sandbox",
]


def default_sandbox() -> str:
    """What a run gets when nobody names a backend: what the platform uses. RUNNER_SANDBOX where set, else
    bwrap where bubblewrap is installed (or, as root, its unshare fallback), else docker where an engine is
    configured (DOCKER_HOST). Never `none`: an unisolated run must be asked for by name."""
    import shutil

    chosen = settings.get("RUNNER_SANDBOX")
    if chosen:
        return chosen
    if shutil.which("bwrap") or (os.geteuid() == 0 and shutil.which("unshare") and shutil.which("setpriv")):
        return "bwrap"
    if os.environ.get("DOCKER_HOST") or os.path.exists("/var/run/docker.sock"):
        return "docker"
    raise RuntimeError(
        "no sandbox is available: install bubblewrap (Debian: apt-get install bubblewrap) or configure a "
        "Docker engine; `--sandbox none` runs the kernel unisolated, for unit tests only"
    )


def get_sandbox(name: str) -> Sandbox:
    if name == "none":
        return Sandbox()
    if name == "bwrap":
        from runner.sandbox.bwrap import BwrapSandbox

        return BwrapSandbox()
    if name == "docker":
        from runner.sandbox.docker import DockerSandbox

        return DockerSandbox()
    raise ValueError(f"unknown sandbox {name!r}; choose docker, bwrap or none")

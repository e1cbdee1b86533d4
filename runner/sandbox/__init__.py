"""Where the contestant runs. One interface, three backends: docker (GPU hosts), bwrap (hosts without
Docker, and the embedded default), none (unit tests; the report says the run was not isolated).

A job goes through the backend in four steps, all of them here:

    execute():  sandbox.prepare(job_dir)            before anything runs (a dedicated uid, scratch)
                sandbox.run_judge(request, ...)     the trusted judge process; docker starts it in a container
    judge:      sandbox.start(job, argv, fds, out)  the contestant, talking to the judge over inherited fds
    execute():  sandbox.cleanup(job_dir)            after it: no process, no file of the job remains

With bwrap and none the judge stays outside the contestant's sandbox. With docker the judge runs inside the
same container as the contestant (CUDA IPC needs that) and starts it there with the plain launcher below.
docs/sandbox.md says what each backend stops.
"""

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

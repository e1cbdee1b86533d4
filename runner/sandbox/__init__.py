"""Where the contestant runs. One interface, three backends: docker (GPU hosts), bwrap (hosts without
Docker, and the embedded default), none (unit tests; the report says the run was not isolated).

The judge stays outside the contestant's sandbox: it starts the contestant through `Sandbox.start` and
talks to it over inherited file descriptors only.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from runner.limits import Limits

RUNNER_ROOT = Path(__file__).resolve().parent.parent.parent  # the folder that holds the runner package


@dataclass
class Job:
    """The job's own directory: the submission, task.py, and a writable scratch folder."""

    dir: Path
    submission: Path
    scratch: Path
    device: str
    threads: int
    limits: Limits


def contestant_env(job: Job, python_path: str) -> dict[str, str]:
    """A scrubbed environment: nothing of the platform's (no secrets, no settings) reaches the contestant."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(job.scratch),
        "TMPDIR": str(job.scratch),
        "PYTHONPATH": python_path,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": str(job.threads),
        "MKL_NUM_THREADS": str(job.threads),
        "TRITON_CACHE_DIR": str(job.scratch / ".triton"),
        "LANG": "C.UTF-8",
    }
    if job.device == "cuda" and "CUDA_VISIBLE_DEVICES" in os.environ:
        env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
    return env


def rlimits(limits: Limits, device: str) -> list[tuple[int, tuple[int, int]]]:
    out = [
        (resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s)),
        (resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if device == "cpu":  # a CUDA context reserves far more address space than it uses
        out.append((resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes)))
    return out


def die_with_parent() -> None:
    """In a child before exec: SIGKILL it when the judge dies, however the judge dies."""
    import ctypes

    ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL


class Sandbox:
    name = "none"
    isolated = False
    note = "not isolated: the contestant ran as an ordinary child process (sandbox none, for unit tests)"

    def start(self, job: Job, argv: list[str], pass_fds: tuple[int, ...], stdout: int) -> subprocess.Popen:
        limits = rlimits(job.limits, job.device)

        def pre_exec() -> None:
            die_with_parent()
            for which, value in limits:
                resource.setrlimit(which, value)

        return subprocess.Popen(
            [sys.executable, *argv],
            cwd=job.dir,
            env=contestant_env(job, f"{RUNNER_ROOT}:{job.dir}"),
            pass_fds=pass_fds,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killed as a whole
            preexec_fn=pre_exec,
        )

    def cleanup(self, job_dir: Path) -> None:
        """After the job (its directory is removed next): nothing of it may remain."""


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

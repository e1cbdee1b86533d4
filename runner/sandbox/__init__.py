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

import logging
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from runner.limits import Limits

RUNNER_ROOT = Path(__file__).resolve().parent.parent.parent  # the folder that holds the runner package


@dataclass
class Job:
    """The job's own directory: the submission, task.py, and a writable scratch folder; and on a CPU the
    job's cgroup, where the host gives one (runner/cgroup.py)."""

    dir: Path
    submission: Path
    scratch: Path
    device: str
    threads: int
    limits: Limits
    cgroup: Path | None = None


@dataclass
class JudgeRun:
    """What the judge process left: its stdout (the report), the tail of its stderr, and whether it had to
    be killed at the job's hard wall-clock limit."""

    out: bytes
    err: bytes
    timed_out: bool = False
    returncode: int | None = None  # the judge's exit status (negative: killed by that signal)


class Process(Protocol):
    """A started process as the caller and the judge use it: subprocess.Popen, or a forked one
    (runner/forkserver.py's ServedJudge, runner/sandbox/bwrap.py's ForkedContestant)."""

    pid: int
    returncode: int | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


# Called with each piece of the judge's stdout as it arrives (execute() reads the case frames off it), from
# the thread that reads the stream; it must not block for long.
OnOut = Callable[[bytes], None]

MALLOC_TUNABLES = "glibc.malloc.trim_threshold=17179869184:glibc.malloc.mmap_threshold=33554432"


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
        # OpenMP workers spin for a short while after a parallel region, not libgomp's default ~300,000
        # rounds: a spinning worker burns CPU time that a window is charged for, after every call now that
        # the judge writes each call's input between calls (docs/harness.md).
        "GOMP_SPINCOUNT": "1000",
        "TRITON_CACHE_DIR": str(job.scratch / ".triton"),
        "LANG": "C.UTF-8",
        # Freed memory stays in the heap instead of going back to the kernel: otherwise a call that
        # allocates its output pays page faults whenever glibc last trimmed the heap, which on a VM
        # costs up to 30 times the kernel itself, at random calls (measured: docs/bench/history.md).
        "GLIBC_TUNABLES": MALLOC_TUNABLES,
    }
    if job.device == "cuda" and "CUDA_VISIBLE_DEVICES" in os.environ:
        env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
    return env


def rlimits(limits: Limits, device: str) -> list[tuple[int, tuple[int, int]]]:
    """The per-process limits every backend sets on the contestant. The CPU limit's hard value lies a little
    above the soft one: at the soft limit the kernel sends SIGXCPU, which the judge names; were they equal,
    the kernel would send a bare SIGKILL instead."""
    out = [
        (resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5)),
        (resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes)),
        (resource.RLIMIT_CORE, (0, 0)),
        # Descriptors are counted per process against one table for the whole host (fs.file-max): with
        # the process limit this bounds what one job can hold (Limits.job_files).
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
    ]
    if device == "cpu":  # a CUDA context reserves far more address space than it uses
        out.append((resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes)))
    return out


def drop_capabilities() -> None:
    """In a child before exec, as root: empty the capability bounding set and the ambient set, so that the
    program it execs holds no capability at all (a root without CAP_SYS_PTRACE cannot read a non-dumpable
    judge's memory or descriptors, nor those of a caller that holds every capability), and set
    no-new-privileges so that no setuid program gives any back."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    for cap in range(64):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP; past the last capability it fails, harmlessly
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")


def first_for_the_oom_killer() -> None:
    """In a child before it drops root: when memory runs out, the kernel's OOM killer ends this process and
    what it forks before anything else (the judge, the worker, a database). Written while the process still
    holds CAP_SYS_RESOURCE, the value is also its floor: the contestant cannot lower it again."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:  # no /proc here: the job's memory bound still holds where there is one
        pass


def die_with_parent() -> None:
    """In a child before exec: SIGKILL it when the judge dies, however the judge dies."""
    import ctypes

    ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL


class Sandbox:
    """The `none` backend, and the interface every backend implements."""

    name = "none"
    isolated = False

    @property
    def note(self) -> str:
        """What isolated the contestant, in words, for the report."""
        return (
            "not isolated: the contestant ran as an ordinary child process without capabilities (sandbox "
            "none, for unit tests; refused in leaderboard mode)"
        )

    def served(self) -> bool:
        """Whether judges are forked from runner/forkserver.py instead of started as `python -m runner.judge`."""
        return False

    def prepare(self, job_dir: Path) -> None:
        """Before the judge starts (in the calling process): set the job directory up for this backend.
        Raises RuntimeError, in the operator's words, when the backend cannot run on this host."""

    def run_judge(
        self, request: dict, job_dir: Path, env: dict[str, str], timeout_s: float, on_out: OnOut | None = None
    ) -> JudgeRun:
        """Run `python -m runner.judge` with `request` (which holds the secret seed) on its stdin, never in
        argv, env or a file; kill it, and everything it started, at `timeout_s`. Each piece of its stdout
        goes to `on_out` as it arrives, and whole into the JudgeRun."""
        import json
        import threading

        from runner import forkserver, leash

        held = leash.leash_s()
        parent = os.getpid()
        proc: forkserver.ServedJudge | subprocess.Popen | None = None
        if self.served() and forkserver.enabled():
            try:
                proc = forkserver.spawn(env)
                parent = proc.parent  # the server's waiter, which kills the judge when this process goes
            except (OSError, RuntimeError, EOFError):  # the job goes on, exec'd as without a server
                logging.getLogger(__name__).exception(
                    "the judge's fork server failed; the judge starts on its own"
                )
        if proc is None:
            proc = subprocess.Popen(
                [sys.executable, "-m", "runner.judge"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=RUNNER_ROOT,
                start_new_session=True,
                preexec_fn=die_with_parent,  # a worker killed mid-run takes its judge with it
            )
        stdin = proc.stdin
        assert stdin is not None  # stdin=PIPE
        out, err = bytearray(), bytearray()
        readers = [
            threading.Thread(target=_drain, args=(proc.stdout, out, on_out), daemon=True),
            threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True),
        ]
        for reader in readers:
            reader.start()
        try:
            line = json.dumps({**request, "leash_s": held, "parent": parent} if held else request)
            try:
                stdin.write(line.encode() + b"\n")
                stdin.flush()
                if not held:
                    stdin.close()
            except BrokenPipeError:  # it died at once; its stderr says why
                pass
            timed_out = False
            if held:
                with leash.Holder(stdin, leash.interval_for(held)):
                    timed_out = _wait(proc, timeout_s)
            else:
                timed_out = _wait(proc, timeout_s)
            _killpg(proc.pid)  # a timed-out judge; else whatever of its group still holds the pipes
            proc.wait()
            for reader in readers:
                reader.join()
            return JudgeRun(bytes(out), bytes(err), timed_out=timed_out, returncode=proc.returncode)
        finally:
            _killpg(proc.pid)  # nothing the judge started outlives it
            try:
                stdin.close()
            except (BrokenPipeError, OSError):
                pass

    def start(self, job: Job, argv: list[str], pass_fds: tuple[int, ...], stdout: int) -> Process:
        """In the judge: start `python argv...` as the contestant, in its own process group, with `pass_fds`
        inherited and its output on `stdout`."""
        limits = rlimits(job.limits, job.device)

        def pre_exec() -> None:
            die_with_parent()
            first_for_the_oom_killer()
            for which, value in limits:
                resource.setrlimit(which, value)
            if os.geteuid() == 0:
                drop_capabilities()

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


def _drain(stream, into: bytearray, on_out: OnOut | None = None) -> None:
    while chunk := stream.read1(65536):
        into += chunk
        if on_out:
            on_out(chunk)
    stream.close()


def _wait(proc: Process, timeout_s: float) -> bool:
    """True when it ran past timeout_s."""
    try:
        proc.wait(timeout=timeout_s)
        return False
    except subprocess.TimeoutExpired:
        return True


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def default_sandbox() -> str:
    """What a run gets when nobody names a backend: what the platform uses. RUNNER_SANDBOX where set, else
    bwrap where bubblewrap is installed (or, as root, its unshare fallback), else docker where an engine is
    configured (DOCKER_HOST). Never `none`: an unisolated run must be asked for by name."""
    import shutil

    chosen = os.environ.get("RUNNER_SANDBOX")
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

"""The sandbox interface every backend implements, and its `none` backend: the contestant as an ordinary
child process (unit tests only; refused in leaderboard mode). docs/sandbox.md, "One interface, three
backends", says how a job goes through a backend."""

from __future__ import annotations

import logging
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from runner.sandbox.job import (
    RUNNER_ROOT,
    Job,
    JudgeRun,
    OnOut,
    Process,
    contestant_env,
    die_with_parent,
    drop_capabilities,
    first_for_the_oom_killer,
    rlimits,
)


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
        """Whether judges are forked from runner/sandbox/launch.py instead of started as `python -m runner.judge`.
        The none backend's are, as bubblewrap's are as root: its judges start as the deployed ones do (the
        contestant is exec'd, there being no sandbox for a stem to join), and a test pays no `import torch`
        per judge."""
        return True

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

        from runner.sandbox import launch
        from runner.wire import leash

        held = leash.leash_s()
        parent = os.getpid()
        proc: launch.ServedJudge | subprocess.Popen | None = None
        if self.served() and launch.enabled():
            try:
                proc = launch.spawn(env)
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

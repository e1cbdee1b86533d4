"""execute(JobSpec) -> RunReport: checks a submission before anything runs, then hands it to a judge
process and waits for its report. The calling process (a worker, the command line, an agent) never
imports the submission. While the judge runs, `on_progress` hears of each case it finishes (advisory:
the report alone is the verdict)."""

from __future__ import annotations

import ast
import contextlib
import ctypes
import dataclasses
import json
import logging
import os
import secrets
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner import readiness, scanner, textsafe
from runner.limits import limits_for, name_limit
from runner.problem import list_problems, load_problem
from runner.sandbox import RUNNER_ROOT, Sandbox, cgroup, default_sandbox, get_sandbox
from runner.spec import DEVICES, MODES, CaseResult, JobSpec, RunReport, Verdict
from runner.wire import leash, seal

JUDGE_GRACE_S = 30  # beyond the mode's wall limit before the judge itself is killed

# Told of each case the judge finishes, as it finishes: {"done": n, "total": m, "case": id, "status": ...}
# from a signed `case` frame (runner/wire/seal.py). Called from the thread that reads the judge's stream.
OnProgress = Callable[[dict[str, Any]], None]

logger = logging.getLogger(__name__)


def precheck(spec: JobSpec) -> str | None:
    """Why a submission is refused before it runs, in the user's words; None when it may run."""
    limits = limits_for(spec.mode)
    raw = spec.source.encode("utf-8", errors="surrogateescape")
    if len(raw) > limits.source_bytes:
        return f"the submission is {len(raw) / 1024:,.0f} KiB; the limit is {limits.source_bytes // 1024} KiB"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the submission is not UTF-8 text (byte {exc.start} is not valid UTF-8)"
    if "\x00" in spec.source:
        return "the submission contains a NUL byte; it must be Python source text"
    try:
        tree = ast.parse(spec.source, filename=spec.filename)
    except SyntaxError as exc:
        return f"syntax error on line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"the submission cannot be parsed: {exc}"
    names = (
        {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        | {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        | {(a.asname or a.name) for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    )
    if "custom_kernel" not in names:
        return "the submission defines no function custom_kernel(data)"
    return None


def syntax_error_line(source: str) -> int | None:
    """The line of the source's syntax error (the submission page marks it), or None when it parses."""
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return exc.lineno
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _usage_error(spec: JobSpec) -> str | None:
    if spec.problem not in list_problems():
        return f"there is no problem called {spec.problem!r}; the problems are: {', '.join(list_problems())}"
    if spec.mode not in MODES:
        return f"unknown mode {spec.mode!r}; choose {', '.join(MODES)}"
    if spec.device not in DEVICES:
        return f"unknown device {spec.device!r}; choose {', '.join(DEVICES)}"
    if not load_problem(spec.problem).cases("test", spec.device):
        return (
            f"{spec.problem} has no cases for the {spec.device.upper()}: its inputs are made on "
            f"{'a GPU' if spec.device == 'cpu' else 'the CPU'} only"
        )
    if not 1 <= spec.threads <= (os.cpu_count() or 1):
        return f"--threads must be between 1 and this machine's {os.cpu_count()} cores; got {spec.threads}"
    if spec.sandbox == "none" and spec.mode == "leaderboard" and not spec.allow_unisolated:
        return (
            "leaderboard mode needs a sandbox (bwrap or docker): `none` runs the kernel unisolated and "
            "is for unit tests only"
        )
    return None


def execute(spec: JobSpec, on_progress: OnProgress | None = None) -> RunReport:
    """The RunReport of judging `spec`. Every string in it is made safe again here (runner/textsafe.py),
    whoever made the report: the judge, or this process from a judge's stderr, a refusal, a fault."""
    return textsafe.safe_report(_execute(spec, on_progress))


def _execute(spec: JobSpec, on_progress: OnProgress | None = None) -> RunReport:
    if not spec.sandbox:
        try:
            spec = dataclasses.replace(spec, sandbox=default_sandbox())
        except RuntimeError as exc:
            return _verdict(spec, Verdict.ERROR, str(exc), platform_fault=True)
    usage = _usage_error(spec)
    if usage:
        return _verdict(spec, Verdict.REJECTED, usage)
    try:
        findings = scanner.scan(spec.source) if len(spec.source) <= limits_for(spec.mode).source_bytes else []
    except (ValueError, RecursionError, MemoryError):  # e.g. non-UTF-8 source: precheck explains
        findings = []
    refused = precheck(spec)
    if refused:
        report = _verdict(spec, Verdict.REJECTED, refused, scan=findings)
        report.error_line = syntax_error_line(spec.source)
        return report
    try:
        sandbox = get_sandbox(spec.sandbox)
    except (ValueError, RuntimeError) as exc:
        return _verdict(spec, Verdict.ERROR, str(exc))
    run_seed = spec.secret_seed if spec.secret_seed is not None else secrets.randbits(63)
    job_dir = Path(tempfile.mkdtemp(prefix="kb-job-"))
    # On a CPU the judge charges the contestant's CPU time from the job's cgroup where the host gives one
    # (runner/sandbox/cgroup.py), under bubblewrap only: there the contestant runs as a uid that cannot write the
    # cgroup files, so it cannot leave. Unisolated (`none`) it keeps uid 0 and could move itself out, to be
    # charged nothing; a container's judge cannot see the host's cgroups. Both read /proc.
    # It also bounds the job's memory and processes as a whole (memory.max, pids.max).
    job_cgroup = (
        cgroup.create(limits_for(spec.mode)) if spec.device == "cpu" and sandbox.name == "bwrap" else None
    )
    try:
        os.chmod(job_dir, 0o755)
        (job_dir / spec.filename).write_text(spec.source)
        problem = load_problem(spec.problem)
        (job_dir / "task.py").write_text(problem.task_source)
        (job_dir / "utils.py").write_text(problem.utils_source)
        (job_dir / "scratch").mkdir()
        try:
            _refuse_ranking_without_cgroup(spec, sandbox, job_cgroup)
            sandbox.prepare(job_dir)
        except RuntimeError as exc:  # the backend cannot run on this host: the operator's problem
            report = _verdict(spec, Verdict.ERROR, str(exc), platform_fault=True)
        else:
            report = _run_judge(spec, sandbox, job_dir, run_seed, on_progress, job_cgroup)
            if job_cgroup is not None:
                _name_job_bounds(report, job_cgroup)
    finally:
        sandbox.cleanup(job_dir)
        if job_cgroup is not None:
            try:
                cgroup.remove(job_cgroup)
            except OSError:  # an empty folder left behind costs nothing; the verdict stands
                logger.exception("could not remove the job's cgroup %s", job_cgroup)
        shutil.rmtree(job_dir, ignore_errors=True)
    report.scan = findings
    return report


def _name_job_bounds(report: RunReport, job_cgroup: Path) -> None:
    """Say which bounds the job's cgroup enforced, and name the memory bound when the kernel's OOM killer
    ended one of the job's processes (the contestant saw only a SIGKILL)."""
    try:
        report.env["job_bounds"] = cgroup.bounds(job_cgroup)
        killed = cgroup.oom_kills(job_cgroup)
    except OSError:  # the report stands without them
        return
    memory = report.env["job_bounds"].get("memory_bytes")
    if killed and memory and report.verdict != Verdict.PASSED and "memory limit" not in report.message:
        report.message += (
            f" (the job's memory limit of {memory / (1 << 20):,.0f} MiB was reached: the kernel ended "
            f"{killed} of its processes)"
        )


def _refuse_ranking_without_cgroup(spec: JobSpec, sandbox: Sandbox, job_cgroup: Path | None) -> None:
    """A ranked run on a CPU is charged from the job's cgroup, or refused: the /proc path only where the
    operator named it (runner/readiness.py)."""
    if spec.ranked:
        why = readiness.leaderboard_refusal(
            spec.device, sandbox.name, spec.allow_unisolated, has_cgroup=job_cgroup is not None
        )
        if why:
            raise RuntimeError(why)


def _verdict(spec: JobSpec, verdict: str, message: str, **fields: Any) -> RunReport:
    """A report made here, without a judge: a refusal, or why the run could not start."""
    return RunReport(
        verdict=verdict, message=message, problem=spec.problem, mode=spec.mode, device=spec.device, **fields
    )


def _progress_reader(key: bytes, on_progress: OnProgress | None) -> Callable[[bytes], None] | None:
    """What reads the judge's stdout as it arrives: the case frames it verifies go to `on_progress`. A
    failing callback is logged and the judging goes on: progress is for display, the report is the truth."""
    if on_progress is None:
        return None
    reader = seal.Reader(key)

    def on_out(chunk: bytes) -> None:
        for case in reader.feed(chunk):
            try:
                on_progress(dict(case))
            except Exception:
                logger.exception("the progress callback failed on %s; the judging goes on", case)

    return on_out


def _run_judge(
    spec: JobSpec,
    sandbox: Sandbox,
    job_dir: Path,
    run_seed: int,
    on_progress: OnProgress | None = None,
    job_cgroup: Path | None = None,
) -> RunReport:
    limits = limits_for(spec.mode, spec.case_budget_s, spec.call_s)
    key = seal.new_key()
    # The limits are computed here once and handed down: the judge (in a container too) and the backend
    # read them from the request.
    request = {
        "spec": {**spec.__dict__, "secret_seed": None},
        "job_dir": str(job_dir),
        "run_seed": run_seed,
        "key": key.hex(),
        "limits": limits.to_dict(),
        "cgroup": str(job_cgroup) if job_cgroup else None,
    }
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE", "CELERY", "SECRET"))
    }
    env["PYTHONPATH"] = str(RUNNER_ROOT) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    started = time.monotonic()
    with _not_dumpable():  # the key lives here too: no process of the contestant may read this one's memory
        run = sandbox.run_judge(
            request, job_dir, env, limits.wall_s + JUDGE_GRACE_S, _progress_reader(key, on_progress)
        )
    base: dict[str, Any] = {
        "problem": spec.problem,
        "mode": spec.mode,
        "device": spec.device,
        "isolation": sandbox.note,
    }
    if run.timed_out:
        return RunReport(
            verdict=Verdict.TIMEOUT,
            message=f"the job ran past its wall-clock limit of {limits.wall_s:g} s",
            limits=limits.to_dict(),
            **base,
        )
    stream = seal.read(key, run.out)  # the whole stream, strictly, whatever the progress reader saw
    tail = "\n".join(run.err.decode(errors="replace").strip().splitlines()[-12:])
    if not stream.started:  # the judge failed before any submission code ran: nothing to say about it
        return RunReport(
            verdict=Verdict.ERROR,
            message="the judge failed to start; this is a fault of the platform, not of "
            f"the submission{': ' + tail.splitlines()[-1] if tail else ''}",
            logs=tail,
            limits={"elapsed_s": time.monotonic() - started},
            platform_fault=True,
            cases=[CaseResult(id=spec.problem, kind="run", status="error", message="judge failed")],
            **base,
        )
    if run.returncode == leash.EXIT_STATUS and stream.report is None:
        # It stopped itself because this process went quiet (frozen, hung): nothing the submission did.
        return RunReport(
            verdict=Verdict.ERROR,
            message="the judge stopped itself because its worker did not answer; this is "
            f"a fault of the platform, not of the submission{': ' + tail.splitlines()[-1] if tail else ''}",
            logs=tail,
            limits=limits.to_dict(),
            platform_fault=True,
            **base,
        )
    why = stream.problem
    if stream.report is not None and run.returncode != 0:
        why = f"the judge {_ended(run.returncode)} after it reported"
    elif stream.report is None and run.returncode != 0:
        why = f"the judge {_ended(run.returncode)} before it reported"
    if why:
        # Signed `started`, then no believable report: the contestant was running, and it is the only party
        # that could have stopped, killed or written over the judge. Its verdict, not a platform fault.
        message = f"the run ended without a valid report from the judge: {why}"
        return RunReport(
            verdict=Verdict.ERROR,
            message=message,
            limits=limits.to_dict(),
            logs=tail,
            **base,
            cases=[CaseResult(id=spec.problem, kind="run", status="error", message=message)],
        )
    assert stream.report is not None  # believed: a report frame and status 0 (above)
    try:
        report = textsafe.checked(json.loads(stream.report))
    except ValueError as exc:  # signed, so the judge's own: it checks its report before it signs it
        return RunReport(
            verdict=Verdict.ERROR,
            message=f"the judge's report could not be read ({exc}); this is a fault of the platform, "
            "not of the submission",
            limits=limits.to_dict(),
            platform_fault=True,
            **base,
        )
    report.message = name_limit(report.message, limits)
    return report


def _ended(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


@contextlib.contextmanager
def _not_dumpable():
    """While a judge runs, this process (which holds the report key) cannot be ptraced or have its memory
    and descriptors read by processes of its own user; restored afterwards."""
    libc = ctypes.CDLL(None, use_errno=True)
    before = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    try:
        yield
    finally:
        if before > 0:
            libc.prctl(4, before, 0, 0, 0)

"""What the sandbox costs: time from execute() to the first custom_kernel call, per backend.

    .venv/bin/python scripts/bench_sandbox.py [--runs 7] [--backends none,bwrap]

1. Time to the first case, end to end: vectoradd's correct submission, whose first call prints the wall
   clock (CLOCK_REALTIME is the same inside the sandbox: bwrap unshares no time namespace), minus the moment
   execute() was called. This includes two Python start-ups with torch (judge and contestant), which on a
   loaded machine vary by seconds, so backends alternate run by run and the paired differences are shown.
2. The sandbox's own part of it, without torch: prepare() + start() of `python -c pass` + cleanup(), which
   is all the backend adds; many runs, so that the noise averages out.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner import JobSpec, execute  # noqa: E402
from runner.limits import limits_for  # noqa: E402
from runner.sandbox import Job, get_sandbox  # noqa: E402

SOURCE = """
import time
import torch

_first = True


def custom_kernel(data):
    global _first
    if _first:
        print(f"FIRST_CALL {time.time():.6f}", flush=True)
        _first = False
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def time_to_first_case(backend: str) -> float:
    started = time.time()
    report = execute(
        JobSpec(problem="vectoradd", source=SOURCE, mode="test", device="cpu", sandbox=backend, call_s=60)
    )
    if report.verdict != "passed":
        raise SystemExit(f"{backend}: {report.verdict}: {report.message}\n{report.logs[-2000:]}")
    match = re.search(r"FIRST_CALL (\d+\.\d+)", report.logs)
    if not match:
        raise SystemExit(f"{backend}: the first call's timestamp is missing from the logs")
    return float(match.group(1)) - started


def launch_cost(backend: str) -> float:
    """prepare() + start() of `python -c pass` + cleanup(): what the backend itself costs a job."""
    job_dir = Path(tempfile.mkdtemp(prefix="kb-job-"))
    try:
        job_dir.chmod(0o755)
        for name in ("submission.py", "task.py"):
            (job_dir / name).write_text("")
        (job_dir / "scratch").mkdir()
        job = Job(
            dir=job_dir,
            submission=job_dir / "submission.py",
            scratch=job_dir / "scratch",
            device="cpu",
            threads=1,
            limits=limits_for("test"),
        )
        sandbox = get_sandbox(backend)
        t0 = time.perf_counter()
        sandbox.prepare(job_dir)
        proc = sandbox.start(job, ["-c", "pass"], (), subprocess.DEVNULL)
        if proc.wait() != 0:
            raise SystemExit(f"{backend}: python -c pass exited with {proc.returncode}")
        sandbox.cleanup(job_dir)
        return time.perf_counter() - t0
    finally:
        subprocess.run(["rm", "-rf", str(job_dir)], check=False)


def _table(title: str, times: dict[str, list[float]]) -> None:
    print(title)
    print(f"  {'backend':<8} {'median':>8} {'min':>8} {'max':>8}")
    for backend, ts in times.items():
        print(f"  {backend:<8} {statistics.median(ts):8.3f} {min(ts):8.3f} {max(ts):8.3f}")
    if "none" in times:
        for backend, ts in times.items():
            if backend != "none":
                paired = [t - n for t, n in zip(ts, times["none"], strict=True)]
                print(
                    f"  {backend} - none: medians {statistics.median(ts) - statistics.median(times['none']):+.3f} s, "
                    f"median of paired differences {statistics.median(paired):+.3f} s"
                )


def _alternating(measure, backends: list[str], runs: int) -> dict[str, list[float]]:
    """`runs` measures of each backend, in turns, the order reversed every other run, so that a change in the
    machine's load hits each alike."""
    times: dict[str, list[float]] = {b: [] for b in backends}
    for i in range(runs):
        for backend in backends if i % 2 == 0 else reversed(backends):
            times[backend].append(measure(backend))
    return times


def _arguments(doc: str, backends: str, **more_runs: int) -> argparse.Namespace:
    """The options of this benchmark and of bench_docker.py: --runs, --backends, and their own --*-runs."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    for name, default in more_runs.items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    ap.add_argument("--backends", default=backends)
    return ap.parse_args()


def main() -> None:
    args = _arguments(__doc__, "none,bwrap", launch_runs=30)
    backends = args.backends.split(",")
    time_to_first_case(backends[0])  # warm the page cache: the first run of all reads torch from disk
    times = _alternating(time_to_first_case, backends, args.runs)
    _table(f"time to the first case, vectoradd on CPU, {args.runs} runs per backend (seconds)", times)
    launches = _alternating(launch_cost, backends, args.launch_runs)
    _table(
        f"the backend's own cost (prepare, start python -c pass, cleanup), {args.launch_runs} runs (seconds)",
        launches,
    )


if __name__ == "__main__":
    main()

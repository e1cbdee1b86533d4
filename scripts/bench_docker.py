"""What the docker backend costs against bwrap and none: time from execute() to the first custom_kernel
call of vectoradd in test mode on the CPU (scripts/bench_sandbox.py's measure), and the engine's own part.

    .venv/bin/python scripts/bench_docker.py [--runs 7] [--backends none,bwrap,docker]

1. Time to the first case: the backends alternate run by run (the order reversed every other run), so
   that a change in the machine's load hits each alike; medians and the median of paired differences
   against `none`. The container's clock is the host's (no time namespace).
2. The engine's own part: create, start and wait for a container of the runner image with the job's
   configuration running `python -c pass`, then remove it (no torch import), many runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_sandbox import _alternating, _arguments, _table, time_to_first_case  # noqa: E402

from runner.limits import limits_for  # noqa: E402
from runner.sandbox.docker import container_config, engine  # noqa: E402


def container_cost(client) -> float:
    job_dir = Path(tempfile.mkdtemp(prefix="kb-job-"))
    (job_dir / "scratch").mkdir()
    config = container_config(
        job_dir=job_dir,
        job_name=f"kernelboard-{job_dir.name}",
        limits=limits_for("test"),
        device="cpu",
        threads=1,
        host_cpus=os.cpu_count() or 1,
    )
    config.update(command=["python", "-c", "pass"], stdin_open=False)
    t0 = time.perf_counter()
    container = client.containers.create(**config)
    try:
        container.start()
        status = container.wait(timeout=60)["StatusCode"]
    finally:
        container.remove(force=True)
    elapsed = time.perf_counter() - t0
    os.rmdir(job_dir / "scratch")
    os.rmdir(job_dir)
    if status != 0:
        raise SystemExit(f"python -c pass exited with {status} in the container")
    return elapsed


def main() -> None:
    args = _arguments(__doc__, "none,bwrap,docker", container_runs=20)
    backends = args.backends.split(",")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for backend in backends:  # warm the page cache (torch on disk, the image's layers)
        time_to_first_case(backend)
    times = _alternating(time_to_first_case, backends, args.runs)
    _table(
        f"time to the first case, vectoradd test mode on CPU, {args.runs} runs per backend (seconds)", times
    )
    client = engine()
    costs = [container_cost(client) for _ in range(args.container_runs)]
    _table(
        f"the engine's own part (create, start python -c pass, wait, remove), {args.container_runs} runs (seconds)",
        {"docker": costs},
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

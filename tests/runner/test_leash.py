"""A judge never outlives, nor runs on beside, its worker (runner/wire/leash.py).

A stand-in worker (a Python process that calls runner.execute) judges a kernel that sleeps; the test kills
or freezes that worker and watches the judge and its contestant go.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]

SLEEPING_KERNEL = textwrap.dedent(
    """
    import time
    from task import input_t, output_t

    def custom_kernel(data: input_t) -> output_t:
        time.sleep(120)
    """
)

WORKER = textwrap.dedent(
    """
    import json, sys
    from runner import execute
    from runner.spec import JobSpec

    import signal
    from runner.wire import leash

    # SIGUSR1 stands for the heartbeat thread finding the submission taken back.
    signal.signal(signal.SIGUSR1, lambda *_: print("let go:", leash.cut_all(), flush=True))
    report = execute(JobSpec(problem="vectoradd", source=sys.stdin.read(), mode="test", sandbox="none"))
    print(json.dumps({"verdict": report.verdict, "platform_fault": report.platform_fault,
                      "message": report.message}))
    """
)


def children(pid: int) -> list[int]:
    found = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            found += [int(p) for p in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            pass
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait(predicate, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")


@pytest.fixture
def judging(tmp_path):
    """A worker judging the sleeping kernel; returns (worker, judge pid, contestant pid) once the contestant
    runs."""
    started = []

    def start():
        # The judge exec'd as the worker's child, where the test finds it (a served judge is the fork
        # server's, and the caller-gone case of those is in tests/runner/test_forkserver.py).
        env = {**os.environ, "RUNNER_LEASH_S": "2", "PYTHONPATH": str(ROOT), "RUNNER_FORKSERVER": "0"}
        worker = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        started.append(worker)
        worker.stdin.write(SLEEPING_KERNEL.encode())
        worker.stdin.close()
        worker.stdin = None  # so that communicate() later only reads
        judge = wait(lambda: children(worker.pid), 30, "the judge to start")[0]
        contestant = wait(lambda: children(judge), 60, "the contestant to start")[0]
        time.sleep(2)  # the contestant's first call, well under way
        return worker, judge, contestant

    yield start
    for worker in started:
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        worker.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.chaos
def test_a_killed_worker_takes_its_judge_and_contestant_with_it(judging):
    worker, judge, contestant = judging()
    worker.kill()  # the worker alone: the judge is in a session of its own, out of the worker's group
    worker.wait(timeout=10)
    killed_at = time.monotonic()
    wait(lambda: not alive(judge) and not alive(contestant), 10, "the judge and the contestant to stop")
    gone_s = time.monotonic() - killed_at
    assert gone_s < 5
    print(f"\nFIGURE leash: judge and contestant gone {gone_s:.1f} s after the worker was killed")


@pytest.mark.slow
@pytest.mark.chaos
def test_a_frozen_worker_has_its_judge_stop_itself_and_the_run_is_the_platforms_fault(judging):
    worker, judge, contestant = judging()
    os.kill(worker.pid, signal.SIGSTOP)
    frozen_at = time.monotonic()
    try:
        wait(lambda: not alive(judge) and not alive(contestant), 15, "the judge to stop itself")
        stopped_after = time.monotonic() - frozen_at
        assert 1.5 < stopped_after < 8, stopped_after  # the leash is 2 s
        print(
            f"\nFIGURE leash: judge stopped itself {stopped_after:.1f} s after its worker froze (leash 2 s)"
        )
    finally:
        os.kill(worker.pid, signal.SIGCONT)
    out, _ = worker.communicate(timeout=60)
    report = json.loads(out.decode().strip().splitlines()[-1])
    assert report["verdict"] == "error" and report["platform_fault"] is True, report
    assert "stopped itself because its worker did not answer" in report["message"]


@pytest.mark.slow
@pytest.mark.chaos
def test_a_worker_that_lost_its_submission_lets_its_judge_go_at_once(judging):
    # What the heartbeat thread does when it finds the submission taken back (another worker judges it).
    worker, judge, contestant = judging()
    os.kill(worker.pid, signal.SIGUSR1)
    cut_at = time.monotonic()
    wait(lambda: not alive(judge) and not alive(contestant), 30, "the judge to be let go")
    gone_s = time.monotonic() - cut_at
    assert gone_s < 1.5  # at once, not after the leash's 2 s
    out, _ = worker.communicate(timeout=60)
    lines = out.decode().strip().splitlines()
    assert "let go: 1" in lines
    report = json.loads(lines[-1])
    assert report["platform_fault"] is True and "the leash was cut" in report["message"], report

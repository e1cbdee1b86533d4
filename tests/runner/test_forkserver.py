"""Judges forked from the fork server and contestants forked from their stems (runner/sandbox/launch.py and runner/judge/served.py,
runner/sandbox/stem.py), for real: bubblewrap, leased uids, the judge's whole run. What an exec'd contestant
gets, a forked one must get too, and its memory must hold nothing of its own job's secrets or of an earlier
job's. tests/hostile runs every attack through this path as well (it is the default as root)."""

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from runner import JobSpec, execute
from runner.sandbox import RUNNER_ROOT, launch

CORRECT = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
pytestmark = [
    pytest.mark.judge,
    pytest.mark.skipif(
        os.geteuid() != 0 or not shutil.which("bwrap"),
        reason="the fork server serves bubblewrap with leased uids: needs root and bubblewrap",
    ),
]


@pytest.fixture(autouse=True)
def own_sandbox_space(monkeypatch):
    """Other test runs share this machine: lease uids of our own and keep job directories apart."""
    monkeypatch.setenv("RUNNER_SANDBOX_UID_BASE", str(3_500_000 + (os.getpid() % 30_000) * 8))
    monkeypatch.setenv("RUNNER_SANDBOX_UID_COUNT", "8")
    monkeypatch.setenv("RUNNER_SANDBOX_TOOL", "bwrap")
    monkeypatch.delenv("RUNNER_FORKSERVER", raising=False)
    jobs = Path(tempfile.mkdtemp(prefix="kb-forkserver-test-", dir="/tmp"))
    jobs.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(jobs))
    yield jobs
    shutil.rmtree(jobs, ignore_errors=True)


def run(source: str, **spec) -> object:
    report = execute(JobSpec(problem="vectoradd", source=source, sandbox="bwrap", call_s=30, **spec))
    assert report.verdict == "passed", report.message + "\n" + report.logs[-3000:]
    return report


# Checks at import: a violation raises, and the verdict says so.
POWERLESS = (
    """
import os, signal, sys
signal.signal(signal.SIGUSR1, signal.SIG_IGN)
os.kill(0, signal.SIGUSR1)  # its process group: itself only (in the stem's group it killed the stem)
if os.getpgid(0) != os.getpid() or os.getsid(0) != os.getpid():
    raise RuntimeError(f"process group {os.getpgid(0)}, session {os.getsid(0)}, pid {os.getpid()}")
status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
bad = {k: v.strip() for k, v in status.items() if k.startswith("Cap") and int(v, 16) != 0}
if bad or status["NoNewPrivs"].strip() != "1":
    raise RuntimeError(f"capabilities {bad}, NoNewPrivs {status['NoNewPrivs'].strip()}")
if os.getpid() > 10 or os.uname().nodename != "sandbox" or os.getuid() == 0:
    raise RuntimeError(f"pid {os.getpid()}, host {os.uname().nodename}, uid {os.getuid()}")
if sorted(os.listdir("/proc/self/fd")) != ["0", "1", "2", "3", "4"]:  # 4: the listing's own
    raise RuntimeError(f"descriptors {os.listdir('/proc/self/fd')}")
if "runner.judge.served" not in open("/proc/self/cmdline").read():
    raise RuntimeError("not forked: this test is about the forked contestant")
if os.environ.get("OMP_NUM_THREADS") != "1" or set(os.environ) - {
    "PATH", "HOME", "TMPDIR", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "OMP_NUM_THREADS",
    "MKL_NUM_THREADS", "GOMP_SPINCOUNT", "TRITON_CACHE_DIR", "LANG", "GLIBC_TUNABLES", "USER", "LOGNAME",
    "TRITON_INTERPRET",
}:
    raise RuntimeError(f"environment {sorted(os.environ)}")
import ctypes
if ctypes.CDLL(None).unshare(0x10000000) == 0:  # CLONE_NEWUSER
    raise RuntimeError("it could make a user namespace")
"""
    + CORRECT
)


def test_a_forked_contestant_is_sandboxed_like_an_exec_d_one():
    run(POWERLESS)


# Scans every readable byte of its own memory for the job's secret seed, an earlier job's, and the
# secret in the worker's environment (which the judge gets, and which an exec'd contestant never saw).
# Each needle is written in two halves and only ever looked for as the one after the other, so that the
# scan does not find its own source or its own needles; it must find a marker it made itself, so that a
# scan that reads nothing cannot pass.
SCANS_MEMORY = (
    """
NEEDLES = {{"own seed": {own}, "earlier seed": {earlier}, "worker secret": {secret}}}
marker = ("kb-" + "marker-" * 3).encode()
found, scanned = set(), 0


def holds(chunk, head, tail):
    at = chunk.find(head)
    while at != -1:
        if chunk.startswith(tail, at + len(head)):
            return True
        at = chunk.find(head, at + 1)
    return False


with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
    for line in maps.read().splitlines():
        span, perms = line.split()[:2]
        if perms[0] != "r" or line.endswith(("[vvar]", "[vsyscall]", "[vvar_vclock]")):
            continue
        start, end = (int(x, 16) for x in span.split("-"))
        try:
            mem.seek(start)
            chunk = mem.read(end - start)
        except (OSError, OverflowError, ValueError):
            continue
        scanned += len(chunk)
        for name, (head, tail) in NEEDLES.items():
            if holds(chunk, head, tail):
                found.add(name)
        if marker in chunk:
            found.add("marker")
        del chunk
if "marker" not in found or scanned < 100 << 20:
    raise RuntimeError(f"the scan is broken: {{scanned}} bytes, found {{sorted(found)}}")
if found - {{"marker"}}:
    raise RuntimeError(f"found in the contestant's memory: {{sorted(found - {{'marker'}})}}")
"""
    + CORRECT
)


def halves(text: str) -> str:
    """A needle as the source of a pair of bytes literals, split in the middle."""
    middle = len(text) // 2
    return repr((text[:middle].encode(), text[middle:].encode()))


def test_a_forked_contestant_holds_no_secret_of_its_job_or_an_earlier_one(monkeypatch):
    secret = "kb-worker-secret-5c1e0f77"
    monkeypatch.setenv("KB_TEST_WORKER_SECRET", secret)  # the judge inherits the worker's environment
    earlier, own = 7215937318866512345, 6120918273645501234
    run(CORRECT, secret_seed=earlier)
    source = SCANS_MEMORY.format(own=halves(str(own)), earlier=halves(str(earlier)), secret=halves(secret))
    run(source, secret_seed=own)


# Draws from the global generators, which a server that imported them would have seeded once for all.
DRAWS = (
    """
import random
import torch
import numpy.random
print("DRAWN", random.getrandbits(64), numpy.random.randint(0, 2**62), torch.randint(0, 2**62, (1,)).item())
"""
    + CORRECT
)


def test_each_contestant_draws_its_own_random_numbers():
    drawn = [line for _ in range(2) for line in run(DRAWS).logs.splitlines() if line.startswith("DRAWN")]
    assert len(drawn) == 2
    first, second = (line.split()[1:] for line in drawn)
    assert all(a != b for a, b in zip(first, second, strict=True)), drawn


def test_a_dead_server_is_replaced_by_the_next_job():
    run(CORRECT)
    server = launch._servers[os.getpid()]
    server.proc.kill()
    server.proc.wait()
    run(CORRECT)
    assert launch._servers[os.getpid()] is not server


def test_a_judge_whose_caller_goes_is_killed():
    judge = launch.spawn(dict(os.environ))  # it waits for its request, which never comes
    os.kill(judge.pid, 0)  # it is alive
    judge.control.close()  # what the end of the caller's process does
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(judge.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(judge.pid, signal.SIGKILL)
        pytest.fail("the judge outlived its caller's end of the job socket")
    for f in (judge.stdin, judge.stdout, judge.stderr):
        f.close()


def test_without_the_server_the_contestant_is_exec_d(monkeypatch):
    monkeypatch.setenv("RUNNER_FORKSERVER", "0")
    report = run('print("CMDLINE", open("/proc/self/cmdline").read().replace("\\0", " "))\n' + CORRECT)
    assert "-m runner.contestant.harness" in report.logs and "runner.judge.served" not in report.logs


def test_a_server_that_cannot_start_leaves_the_job_to_an_exec_d_judge(monkeypatch):
    server = launch._servers.pop(os.getpid(), None)
    if server is not None:
        server.proc.kill()
        server.proc.wait()
    monkeypatch.setattr(launch, "RUNNER_ROOT", Path("/nonexistent/kernelboard"))  # a broken install
    report = run('print("CMDLINE", open("/proc/self/cmdline").read().replace("\\0", " "))\n' + CORRECT)
    assert "-m runner.contestant.harness" in report.logs and os.getpid() not in launch._servers


TRACES_ITSELF = """
import ctypes, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG 0: it would outlive its stem
if libc.ptrace(0, 0, 0, 0) != 0:  # PTRACE_TRACEME: its parent, the stem, becomes its tracer
    raise OSError(ctypes.get_errno(), "PTRACE_TRACEME")
signal.signal(signal.SIGUSR2, lambda *_: None)
signal.raise_signal(signal.SIGUSR2)  # a stop its tracer sees, which would break a plain wait
"""


def test_a_contestant_that_makes_its_stem_its_tracer_is_killed():
    """The stem's wait reports the tracee's stop: it kills the contestant and reports that, rather than
    dying itself and leaving the contestant running detached from it."""
    report = execute(JobSpec(problem="vectoradd", source=TRACES_ITSELF + CORRECT, sandbox="bwrap", call_s=30))
    assert report.verdict == "error", report.message
    assert "SIGKILL" in report.message and "sandbox launcher" not in report.logs, (
        report.message + report.logs[-2000:]
    )

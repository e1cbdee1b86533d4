"""The bwrap backend, for real: what the contestant's command line holds, that the judge's freeze and the
inherited socket work through bubblewrap, that nothing of a job outlives it and the next starts clean, the
uid leases, the unshare fallback, and the limits named in verdicts. tests/hostile runs the attacks."""

import ctypes
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from runner import JobSpec, execute
from runner.limits import limits_for, name_limit
from runner.sandbox import RUNNER_ROOT, Job, freeze, get_sandbox, launch, uids
from runner.sandbox.bwrap import BwrapSandbox, bwrap_argv

CORRECT = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
needs_root_and_bwrap = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root (dedicated uids) and bubblewrap"
)


@pytest.fixture(autouse=True)
def own_sandbox_space(monkeypatch):
    """Other test runs share this machine: lease uids of our own and keep job directories apart."""
    monkeypatch.setenv("RUNNER_SANDBOX_UID_BASE", str(3_000_000 + (os.getpid() % 30_000) * 8))
    monkeypatch.setenv("RUNNER_SANDBOX_UID_COUNT", "8")
    jobs = Path(tempfile.mkdtemp(prefix="kb-sandbox-test-", dir="/tmp"))
    jobs.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(jobs))
    yield jobs
    shutil.rmtree(jobs, ignore_errors=True)


def make_job(root: Path, device: str = "cpu") -> Job:
    job_dir = Path(tempfile.mkdtemp(prefix="kb-job-", dir=root))
    job_dir.chmod(0o755)
    (job_dir / "submission.py").write_text(CORRECT)
    (job_dir / "task.py").write_text("")
    (job_dir / "scratch").mkdir()
    return Job(
        dir=job_dir,
        submission=job_dir / "submission.py",
        scratch=job_dir / "scratch",
        device=device,
        threads=1,
        limits=limits_for("test"),
    )


def test_the_command_line_unshares_everything_and_binds_only_the_runtime_and_the_job(own_sandbox_space):
    job = make_job(own_sandbox_space)
    (job.dir / ".sandbox-etc").mkdir()
    argv = bwrap_argv(job, ["-m", "runner.contestant.harness", "5"], uid=61003, runtime=["/opt/py"])
    text = " ".join(argv)
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert "--share-net" not in argv and "--bind" not in argv and "--dev-bind" not in argv  # nothing writable
    assert argv[argv.index("--uid") + 1] == "61003"
    sources = [argv[i + 1] for i, a in enumerate(argv) if a in ("--ro-bind", "--ro-bind-try")]
    assert str(RUNNER_ROOT) not in sources and str(RUNNER_ROOT / "runner") in sources  # not the repository
    assert "/opt/py" in sources and "/etc" not in sources and "/" not in sources and "/home" not in sources
    assert not any(s.startswith(("/var", "/root", "/etc/shadow")) for s in sources)
    assert str(job.submission) in sources and str(job.dir) not in sources
    i = argv.index("--tmpfs")
    assert argv[i + 1] == str(job.scratch) and argv[i - 4 : i - 2] == [
        "--size",
        str(job.limits.scratch_bytes),
    ]
    assert "--remount-ro /" in text and argv[-4:] == [argv[-4], "-m", "runner.contestant.harness", "5"]


@needs_root_and_bwrap
def test_the_judges_freeze_and_the_inherited_socket_work_through_bubblewrap(own_sandbox_space):
    job = make_job(own_sandbox_space)
    sandbox = BwrapSandbox(tool="bwrap")
    sandbox.prepare(job.dir)
    ours, theirs = socket.socketpair()
    code = (
        "import os, socket, threading, time\n"
        f"s = socket.socket(fileno={theirs.fileno()})\n"
        "threading.Thread(target=lambda: time.sleep(60), daemon=True).start()\n"
        "s.sendall(str(os.getuid()).encode())\n"
        "while True:\n"
        "    s.sendall(b'.'); time.sleep(0.01)\n"
    )
    proc = sandbox.start(job, ["-c", code], (theirs.fileno(),), subprocess.DEVNULL)
    theirs.close()
    try:
        ours.settimeout(60)
        uid = ours.recv(64).split(b".")[0].decode()
        assert int(uid) == sandbox._lease.uid and int(uid) in uids.uid_range()
        frozen = freeze.freeze()  # every process below this one: the sandbox is the test's child
        tree = freeze.descendants()
        assert proc.pid in tree and len(tree) >= 3, tree  # bwrap, its pid-1 reaper, the contestant
        assert set(tree) <= set(frozen)
        assert freeze.thread_count(frozen) >= 4  # the contestant's two threads too
        time.sleep(0.1)
        ours.setblocking(False)
        try:
            while ours.recv(65536):
                pass
        except BlockingIOError:
            pass
        time.sleep(0.2)
        with pytest.raises(BlockingIOError):
            ours.recv(1)  # frozen: it sends nothing
        freeze.thaw(frozen)
        ours.settimeout(10)
        assert ours.recv(1) == b"."  # thawed: it runs again
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
        sandbox.cleanup(job.dir)
    assert uids.leftovers() == {} and uids.leased() == []


@needs_root_and_bwrap
def test_cleanup_kills_whatever_still_runs_as_the_jobs_uid(own_sandbox_space):
    job = make_job(own_sandbox_space)
    sandbox = BwrapSandbox(tool="bwrap")
    sandbox.prepare(job.dir)
    uid = sandbox._lease.uid
    stray = subprocess.Popen(["sleep", "600"], user=uid, group=uid, start_new_session=True)
    assert uids.processes_of(uid) == [stray.pid]
    sandbox.cleanup(job.dir)
    assert stray.wait(timeout=10) == -9
    assert uids.processes_of(uid) == [] and uid not in uids.leased()


@needs_root_and_bwrap
def test_concurrent_jobs_lease_different_uids_and_a_released_one_is_reused():
    first, second = uids.acquire(), uids.acquire()
    try:
        assert first.uid != second.uid and {first.uid, second.uid} <= set(uids.uid_range())
        assert set(uids.leased()) == {first.uid, second.uid}
    finally:
        first.release()
    third = uids.acquire()
    try:
        assert third.uid == first.uid
    finally:
        second.release()
        third.release()
    assert uids.leased() == []


LEAVES_A_MARK = """
import os, subprocess, torch
open(os.path.join(os.environ["TMPDIR"], "mark"), "w").write("job one was here")
subprocess.Popen(["sleep", "700"], start_new_session=True)

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""

CHECKS_IT_IS_CLEAN = """
import glob, os, torch
seen = [p for p in glob.glob("/tmp/**/mark", recursive=True)] + os.listdir(os.environ["TMPDIR"])
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) > 2 and int(p) != os.getpid()]
if seen or others:
    raise RuntimeError(f"not clean: {seen} {others}")

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


@pytest.mark.judge
@needs_root_and_bwrap
def test_nothing_outlives_a_job_and_the_next_starts_clean(own_sandbox_space):
    one = execute(JobSpec(problem="vectoradd", source=LEAVES_A_MARK, sandbox="bwrap", call_s=30))
    assert one.verdict in ("passed", "flagged"), one.message + one.logs[-2000:]  # flagged: its extra process
    assert one.isolation.startswith("isolated by bubblewrap")
    assert uids.leftovers() == {} and uids.leased() == []
    assert list(own_sandbox_space.iterdir()) == []  # the job directory and its scratch are gone
    two = execute(JobSpec(problem="vectoradd", source=CHECKS_IT_IS_CLEAN, sandbox="bwrap", call_s=30))
    assert two.verdict == "passed", two.message + two.logs[-2000:]


@pytest.mark.skipif(
    os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("setpriv")),
    reason="the unshare fallback needs root and util-linux",
)
@pytest.mark.judge
def test_the_unshare_fallback_isolates_and_says_so(own_sandbox_space, monkeypatch):
    monkeypatch.setenv("RUNNER_SANDBOX_TOOL", "unshare")  # as where bubblewrap is not installed
    report = execute(JobSpec(problem="vectoradd", source=CORRECT, sandbox="bwrap", call_s=30))
    assert report.verdict == "passed", report.message + report.logs[-2000:]
    assert (
        report.isolation.startswith("isolated by unshare")
        and "bubblewrap is not installed" in report.isolation
    )
    escape = "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)\n" + CHECKS_IT_IS_CLEAN
    report = execute(JobSpec(problem="vectoradd", source=escape, sandbox="bwrap", call_s=30))
    assert report.verdict == "error" and "Network is unreachable" in report.message, report.message
    assert uids.leftovers() == {} and uids.leased() == []


SYS_ADD_KEY = {"x86_64": 248, "aarch64": 217}[os.uname().machine]
SYS_KEYCTL = uids.SYS_KEYCTL[os.uname().machine]

# Job one leaves a key in each keyring of its uid that outlives its processes; job two, leased the same uid,
# looks for them. Under the unshare fallback the contestant shares the host's user namespace, where those
# keyrings persist: a channel from one job to the next (found by a review of what outlives a job).
LEAVES_KEYS = f"""
import ctypes, torch
syscall = ctypes.CDLL(None, use_errno=True).syscall
persistent = syscall({SYS_KEYCTL}, 22, -1, -2)
for ring in (-3, -4, -5, persistent):
    assert syscall({SYS_ADD_KEY}, b"user", b"kb-carry", b"job one", 7, ring) > 0, ctypes.get_errno()

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""
FINDS_NO_KEYS = f"""
import ctypes, torch
syscall = ctypes.CDLL(None, use_errno=True).syscall
persistent = syscall({SYS_KEYCTL}, 22, -1, -2)
found = [r for r in (-3, -4, -5, persistent) if syscall({SYS_KEYCTL}, 10, r, b"user", b"kb-carry", 0) > 0]
if found:
    raise RuntimeError(f"keys of an earlier job in keyrings {{found}}")

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def _as_uid(uid: int, call) -> int:
    """call() in a child that runs as uid: its result is the child's exit status."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os._exit(int(call()))
        except BaseException:
            os._exit(99)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (dedicated uids)")
def test_a_leased_uid_starts_with_empty_keyrings(own_sandbox_space):
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    lease = uids.acquire()
    uid = lease.uid
    assert _as_uid(uid, lambda: syscall(SYS_ADD_KEY, b"user", b"kb-carry", b"x", 1, -4) <= 0) == 0
    assert _as_uid(uid, lambda: syscall(SYS_KEYCTL, 10, -4, b"user", b"kb-carry", 0) > 0) == 1  # it is there
    lease.release()
    again = uids.acquire()
    try:
        assert again.uid == uid
        assert _as_uid(uid, lambda: syscall(SYS_KEYCTL, 10, -4, b"user", b"kb-carry", 0) > 0) == 0
    finally:
        again.release()


@pytest.mark.skipif(
    os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("setpriv")),
    reason="the unshare fallback needs root and util-linux",
)
@pytest.mark.judge
@pytest.mark.parametrize("tool", ["unshare", "bwrap", "bwrap-exec"])
def test_no_key_of_one_job_reaches_the_next(own_sandbox_space, monkeypatch, tool):
    if tool.startswith("bwrap") and not shutil.which("bwrap"):
        pytest.skip("needs bubblewrap")
    monkeypatch.setenv("RUNNER_SANDBOX_TOOL", tool.removesuffix("-exec"))
    monkeypatch.setenv("RUNNER_FORKSERVER", "0" if tool.endswith("-exec") else "1")
    # A worker under a service manager has a session keyring, which every judge and contestant inherits
    # (a key of job one there was found by job two, forked or exec'd, until contestants got one of their
    # own). Give this process one, and a fork server started after it.
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    assert syscall(SYS_KEYCTL, 1, b"kb-worker-session") > 0, ctypes.get_errno()
    server = launch._servers.pop(os.getpid(), None)
    if server is not None:
        server.proc.kill()
        server.proc.wait()
    one = execute(JobSpec(problem="vectoradd", source=LEAVES_KEYS, sandbox="bwrap", call_s=30))
    assert one.verdict == "passed", one.message + one.logs[-2000:]
    two = execute(JobSpec(problem="vectoradd", source=FINDS_NO_KEYS, sandbox="bwrap", call_s=30))
    assert two.verdict == "passed", two.message + two.logs[-2000:]


def test_a_missing_bubblewrap_is_an_error_in_the_operators_words(own_sandbox_space, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install bubblewrap"):
        BwrapSandbox().prepare(make_job(own_sandbox_space).dir)


def test_every_backend_is_chosen_by_name():
    assert get_sandbox("none").isolated is False and "not isolated" in get_sandbox("none").note
    assert get_sandbox("bwrap").name == "bwrap" and get_sandbox("docker").name == "docker"
    with pytest.raises(ValueError, match="choose docker, bwrap or none"):
        get_sandbox("chroot")


def test_verdicts_name_the_limit_that_was_hit():
    lim = limits_for("test")
    assert name_limit(
        "custom_kernel raised RuntimeError: DefaultCPUAllocator: can't allocate memory", lim
    ).endswith("(the memory limit of 16 GiB was reached)")
    assert "scratch limit of 256 MiB" in name_limit("OSError: [Errno 28] No space left on device", lim)
    assert "file-size limit" in name_limit("OSError: [Errno 27] File too large", lim)
    assert "256 processes and threads" in name_limit(
        "BlockingIOError: [Errno 11] Resource temporarily unavailable", lim
    )
    already = "killed by SIGXCPU: it used its 600 s of CPU time (the CPU limit)"
    assert (
        name_limit(already, lim) == already
        and name_limit("wrong output on call 3", lim) == "wrong output on call 3"
    )


def test_limits_are_set_in_one_place_and_an_operator_may_change_them(monkeypatch):
    assert limits_for("test").wall_s < limits_for("leaderboard").wall_s
    monkeypatch.setenv("RUNNER_LIMITS", json.dumps({"cpu_s": 7, "scratch_bytes": 1 << 20}))
    lim = limits_for("benchmark")
    assert lim.cpu_s == 7 and isinstance(lim.cpu_s, int) and lim.scratch_bytes == 1 << 20
    monkeypatch.setenv("RUNNER_LIMITS", json.dumps({"gpus": 2}))
    with pytest.raises(ValueError, match="may set only"):
        limits_for("test")

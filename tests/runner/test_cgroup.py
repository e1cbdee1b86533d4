"""The job's cgroup (runner/sandbox/cgroup.py): the CPU time of every process that was in it, those the kernel reaped
by itself included, every live process listed whatever its parent, and nothing left once it is removed."""

from __future__ import annotations

import errno
import subprocess
import sys
import time
from dataclasses import replace

from runner.limits import limits_for
from runner.sandbox import cgroup

# Once told to go (it is in the cgroup by then), three children that each burn 0.2 s of CPU and are reaped by
# the kernel (SIGCHLD ignored), and a grandchild orphaned by its parent's exit; then it waits to be killed.
WORKLOAD = """
import os, signal, sys, time
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
sys.stdin.readline()
burnt_r, burnt_w = os.pipe()
for _ in range(3):
    if os.fork() == 0:
        t = time.process_time()
        while time.process_time() - t < 0.2:
            pass
        os.write(burnt_w, b"x")
        os._exit(0)
if os.fork() == 0:
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
burnt = 0
while burnt < 3:
    burnt += len(os.read(burnt_r, 3))
print("done", flush=True)
time.sleep(600)
"""


def test_the_cpu_time_of_children_the_kernel_reaped_is_counted_and_nothing_outlives_removal(job_cgroups):
    path = cgroup.create()
    assert path is not None
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKLOAD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        cgroup.add(path, [proc.pid])
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("go\n")  # only now may it fork: its children are born in the cgroup
        proc.stdin.flush()
        assert proc.stdout.readline() == "done\n"
        assert cgroup.cpu_seconds(path) >= 0.6  # the three children, long reaped
        deadline = time.monotonic() + 5
        while len(live := cgroup.pids(path)) > 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # the children are still exiting
        assert proc.pid in live and len(live) == 2, live  # and the orphan, whose parent is gone
        cgroup.remove(path)
        assert not path.exists()
        proc.wait(timeout=5)
        for pid in live:
            deadline = time.monotonic() + 5
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not _alive(pid), pid
    finally:
        proc.kill()
        if path.exists():
            cgroup.remove(path)


def test_no_cgroup_where_the_host_gives_none(monkeypatch):
    monkeypatch.setenv("RUNNER_CGROUP_PARENT", "/proc/no-cgroups-here")
    assert cgroup.create() is None


def _alive(pid: int) -> bool:
    """Running, or a zombie not yet reaped: False once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_dead_workers_empty_cgroup_is_removed_by_the_next_job(job_cgroups):
    """A worker killed mid-job never ran its cleanup: the next job's create() removes what it left."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    base = cgroup.parent()
    assert base is not None
    stale = base / cgroup.job_name(gone.pid)
    elsewhere = base / f"job-1-{gone.pid}-deadbeef"  # the same pid in another pid namespace: not ours
    stale.mkdir()
    elsewhere.mkdir()
    path = cgroup.create()
    try:
        assert path is not None and not stale.exists()
        assert elsewhere.exists()
    finally:
        if path:
            cgroup.remove(path)
        for made in (stale, elsewhere):
            if made.exists():
                made.rmdir()


# Once told to go, four children of 24 MiB each (96 MiB together, each far below any per-process limit) that
# wait to be killed; then as many more processes as it can make. It prints what happened to each.
MANY_MEDIUM = """
import os, signal, sys, time
sys.stdin.readline()
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        hog = b"x" * (24 << 20)  # written, so resident: charged to the job
        time.sleep(600)
    kids.append(pid)
time.sleep(1)
for pid in kids:
    done, status = os.waitpid(pid, os.WNOHANG)
    print("killed" if done and os.WIFSIGNALED(status) else "alive", flush=True)
made = 0
try:
    for _ in range(64):
        if os.fork() == 0:
            time.sleep(600)
        made += 1
except OSError as exc:
    print("fork refused", exc.errno, made, flush=True)
print("end", flush=True)
time.sleep(600)
"""


def test_a_jobs_cgroup_bounds_its_memory_and_processes_as_a_whole(job_cgroups):
    """Many medium-sized processes: each is far from any per-process limit, together they pass the job's
    memory bound, so the kernel's OOM killer ends one of them, inside the job (never this process); and
    the job's processes stop at its process bound."""
    limits = replace(limits_for("test"), job_memory_bytes=64 << 20, processes=16)
    path = cgroup.create(limits)
    assert path is not None
    assert cgroup.bounds(path) == {"memory_bytes": 64 << 20, "processes": 16}
    proc = subprocess.Popen(
        [sys.executable, "-c", MANY_MEDIUM], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        cgroup.add(path, [proc.pid])
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        lines = [proc.stdout.readline().strip() for _ in range(6)]
        assert "killed" in lines[:4], lines
        assert cgroup.oom_kills(path) >= 1
        refused = lines[4].split()
        assert refused[:3] == ["fork", "refused", str(errno.EAGAIN)], lines
        assert len(cgroup.pids(path)) <= 16
    finally:
        proc.kill()
        cgroup.remove(path)
    assert not path.exists() and not cgroup.siblings(path)

"""Attack: empty the host's table of open files (fs.file-max), which every process on the host shares: as
many processes as it may make, each opening eventfds until refused. Expected: error; each process stops at
its own bound of open files, so the whole job holds at most processes x open files (Limits.job_files), far
from the host's table, and the verdict names the per-process limit (the submission's fault, never the
platform's). Bounds lowered with RUNNER_LIMITS to be quick; the figures at the default bounds are in
docs/benchmarks.md."""

import threading
import time

from tests.hostile.judging import attack, expect

LIMITS = {"open_files": 256, "processes": 32}

SOURCE = attack("""
import os
import time
import torch

def flood():
    held = []
    while True:
        try:
            held.append(os.eventfd(0))
        except OSError as exc:
            return held, exc

ready_r, ready_w = os.pipe()
children = 0
try:
    for _ in range(4096):
        if os.fork() == 0:
            flood()
            os.write(ready_w, b"x")
            time.sleep(600)
        children += 1
except OSError:
    pass  # the process limit: enough helpers
for _ in range(children):
    os.read(ready_r, 1)
started = time.monotonic()
held, refused = flood()
print(f"FLOOD {children} helpers, {len(held)} here, refused after {time.monotonic() - started:.3f} s", flush=True)
raise refused
""")


def _open_files() -> int:
    with open("/proc/sys/fs/file-nr") as f:
        return int(f.read().split()[0])


def test_a_flood_of_open_files_stops_at_the_jobs_own_bound(hostile):
    with open("/proc/sys/fs/file-max") as f:
        table = int(f.read())
    before, peak, done = _open_files(), [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _open_files())
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        report = hostile(SOURCE, limits=LIMITS)
    finally:
        done.set()
        watcher.join()
    expect(report, "error", "Too many open files", "the limit of 256 open files per process was reached")
    assert not report.platform_fault
    assert "FLOOD" in report.logs
    grew = peak[0] - before
    # Other work on the machine opens and closes files meanwhile: the job's own bound plus a margin
    assert grew < 256 * 32 + 20_000 < table // 10, (grew, table)

"""How many descriptors one job can hold open at once, and how fast it is refused, against the host's table
(fs.file-max): the attack of tests/hostile/test_open_files_flood.py at the mode's default bounds, through the
bwrap backend, with the host's open files sampled from /proc/sys/fs/file-nr meanwhile. Root, bubblewrap.

    .venv/bin/python scripts/bench_open_files.py --runs 3
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile.judging import Hostile, attack  # noqa: E402

SOURCE = attack("""
import os, struct, time
import torch

def flood():
    held = []
    while True:
        try:
            held.append(os.eventfd(0))
        except OSError as exc:
            return held, exc

r, w = os.pipe()
t0 = time.monotonic()
children = 0
try:
    for _ in range(4096):
        if os.fork() == 0:
            held, _ = flood()
            os.write(w, struct.pack("i", len(held)))
            time.sleep(600)
        children += 1
except OSError:
    pass  # the process limit
held, refused = flood()
total = len(held)
for _ in range(children):
    total += struct.unpack("i", os.read(r, 4))[0]
print(f"FLOOD {children + 1} processes held {total} descriptors; all refused "
      f"{time.monotonic() - t0:.3f} s after the first fork", flush=True)
raise refused
""")


def _open_files() -> int:
    with open("/proc/sys/fs/file-nr") as f:
        return int(f.read().split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with open("/proc/sys/fs/file-max") as f:
        table = int(f.read())
    for _ in range(args.runs):
        before, peak, done = _open_files(), [0], threading.Event()

        def watch(peak: list[int] = peak, done: threading.Event = done) -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _open_files())
                time.sleep(0.002)

        watcher = threading.Thread(target=watch)
        watcher.start()
        report = Hostile("bwrap")(SOURCE)
        done.set()
        watcher.join()
        flood = next((line for line in report.logs.splitlines() if line.startswith("FLOOD")), "no FLOOD line")
        print(f"{flood}; verdict {report.verdict}: {report.message[-90:]}")
        print(
            f"  host's open files {before} -> peak {peak[0]} (+{peak[0] - before}); fs.file-max {table} "
            f"({peak[0] / table:.1%} at the peak)"
        )


if __name__ == "__main__":
    main()

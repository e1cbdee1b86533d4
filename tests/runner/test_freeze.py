"""Freezing the contestant's tree (runner/freeze.py), with real processes and no judge."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from runner import freeze

# Forks a child that sleeps, prints its pid and exits: the child is reparented away from this process.
ORPHAN = """
import os, time
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # the caller reads the pipes to their end
    os.dup2(null, 2)
    time.sleep(60)
    os._exit(0)
print(pid, flush=True)
"""


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_a_known_pid_that_left_the_tree_is_never_stopped_again():
    """The last freeze's pids are stopped first; one that is no longer below the judge has ended, and its
    pid may be an unrelated process's by now (a submission can cycle pids): it is left alone."""
    maker = subprocess.run([sys.executable, "-c", ORPHAN], capture_output=True, text=True, check=True)
    stranger = int(maker.stdout)
    try:
        assert stranger not in freeze.descendants()
        frozen = freeze.freeze([stranger])
        assert stranger not in frozen
        assert _state(stranger) not in ("T", "t")
        freeze.thaw(frozen)
    finally:
        try:
            os.kill(stranger, signal.SIGKILL)
        except ProcessLookupError:
            pass

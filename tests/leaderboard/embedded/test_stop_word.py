"""`serve`'s word to stop, given by its signal handler (leaderboard/server/management/commands/serve.py)."""

from __future__ import annotations

import subprocess
import sys

from testbed import ROOT

# Signals every 0.1 ms land at every point of many short waits, each time on a fresh word; then one signal
# stops a long wait. Prints the seconds that took. A word that takes a lock a wait holds hangs here.
SIGNALS_IN_WAITS = """
import os, signal, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
import django
django.setup()
from leaderboard.server.management.commands.serve import Stop

stop = Stop()
signal.signal(signal.SIGALRM, lambda signum, frame: stop.set())
for _ in range(3):
    signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
    started = time.monotonic()
    while time.monotonic() - started < 0.2:
        stop.wait(0.00005)
    signal.setitimer(signal.ITIMER_REAL, 0)
    assert stop.is_set()
    stop.close()
    stop = Stop()
signal.setitimer(signal.ITIMER_REAL, 0.05)
started = time.monotonic()
assert stop.wait(30) is True
print(round(time.monotonic() - started, 3))
"""


def test_a_signal_stops_a_wait_at_once_however_often_it_lands():
    """A handler runs in the main thread wherever that thread was, the middle of a wait included: the word
    it gives must take no lock a wait holds. With threading.Event this hangs (Event.set waits for the lock
    the interrupted Event.wait holds), as `serve` once ignored SIGTERM and Ctrl-C until killed."""
    run = subprocess.run(
        [sys.executable, "-c", SIGNALS_IN_WAITS], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) < 5

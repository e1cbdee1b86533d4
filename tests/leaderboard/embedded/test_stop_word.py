"""`serve`'s word to stop, given by its signal handler (leaderboard/server/management/commands/serve.py)."""

from __future__ import annotations

import subprocess
import sys

from testbed import ROOT

# Signals every 0.1 ms land at every point of many short waits, each time on a fresh word; then a signal
# lands 1 to 40 us into each of 3,000 waits of 50 ms, and the waits that slept on past it are counted; then
# one signal stops a long wait. Prints that count and the seconds the long wait took. A word that takes a
# lock a wait holds hangs here; one that is not the wakeup fd sleeps on past some signals.
SIGNALS_IN_WAITS = """
import os, signal, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
import django
django.setup()
from leaderboard.server.management.commands.serve import Stop

stop = Stop()
stop.listen()
signal.signal(signal.SIGALRM, lambda signum, frame: stop.set())

def fresh():
    global stop
    stop.close()
    stop = Stop()
    stop.listen()

for _ in range(3):
    signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
    started = time.monotonic()
    while time.monotonic() - started < 0.2:
        stop.wait(0.00005)
    signal.setitimer(signal.ITIMER_REAL, 0)
    assert stop.is_set()
    fresh()
overslept = 0
for i in range(3000):
    signal.setitimer(signal.ITIMER_REAL, (1 + i % 40) * 1e-6)  # lands as the wait starts
    started = time.monotonic()
    stop.wait(0.05)
    overslept += time.monotonic() - started > 0.04
    signal.setitimer(signal.ITIMER_REAL, 0)
    fresh()
signal.setitimer(signal.ITIMER_REAL, 0.05)
started = time.monotonic()
while not stop.is_set():
    stop.wait(30)
print(overslept, round(time.monotonic() - started, 3))
"""


def test_a_signal_stops_a_wait_at_once_however_often_it_lands():
    """A handler runs in the main thread wherever that thread was, the middle of a wait included: the word
    it gives must take no lock a wait holds (with threading.Event this hangs: Event.set waits for the lock
    the interrupted Event.wait holds, as `serve` once ignored SIGTERM and Ctrl-C until killed), and a
    signal that lands just before the wait's select must still end it."""
    run = subprocess.run(
        [sys.executable, "-c", SIGNALS_IN_WAITS], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert run.returncode == 0, run.stderr
    overslept, long_wait_s = run.stdout.split()
    assert overslept == "0"
    assert float(long_wait_s) < 5

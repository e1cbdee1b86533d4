"""Attack: a daemonised child (double fork, setsid, a new program) that tries to outlive the job, to spy on
or disturb the next one. Expected: the run itself passes or is flagged for the extra process (the daemon
does no harm to it), and after the job no trace of the daemon runs anywhere on the host."""

import os
import secrets

from tests.hostile.judging import attack, describe

SOURCE = attack("""
import os
import torch

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "SECONDS"])
    os._exit(0)
os.wait()
""")


def _running(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def test_a_daemonised_child_dies_with_the_job(hostile):
    seconds = str(900_000 + secrets.randbelow(99_999))
    report = hostile(SOURCE.replace("SECONDS", seconds))
    assert report.verdict in ("passed", "flagged"), describe(report)
    assert _running(f"sleep\0{seconds}") == [], "the daemon outlived the job"

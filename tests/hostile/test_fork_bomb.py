"""Attack: a fork bomb at import: every child forks again forever. Expected: error, the parent's fork fails
with EAGAIN and the verdict names the process limit; every process of the bomb is gone after the job."""

from runner.limits import limits_for
from tests.hostile.judging import attack, expect

SOURCE = attack("""
import os
import time
import torch

while True:
    if os.fork() == 0:  # a child: fork forever, slowly enough not to starve the machine
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.05)
""")


def test_a_fork_bomb_hits_the_process_limit(hostile):
    reached = f"the limit of {limits_for('test').processes} processes and threads was reached"
    expect(hostile(SOURCE), "error", "Resource temporarily unavailable", reached)

"""Attack: print 100 MB (fill the worker's disk or memory, bury the report). Expected: failed, naming the
output limit; the report keeps only the head and tail of what it printed."""

from runner.limits import limits_for
from tests.hostile.judging import attack, expect

SOURCE = attack("""
import sys
import torch

line = "x" * 1023 + "\\n"
for _ in range(100 * 1024):
    sys.stdout.write(line)
""")


def test_100_mb_of_output_is_stopped_at_the_output_limit(hostile):
    limit = limits_for("test").output_bytes / 2**20
    report = hostile(SOURCE)
    expect(report, "failed", f"printed more than {limit:g} MiB (the output limit)")
    assert len(report.logs) < 256 * 1024

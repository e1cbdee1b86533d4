"""Attack: read the platform's environment (DATABASE_URL, SECRET_KEY, tokens), in its own environment and
in every process it can see under /proc. The test plants a secret in the parent's environment, which the
judge inherits. Expected: error, a KeyError naming the variable: the contestant's environment is scrubbed,
and its /proc shows its own processes only."""

from tests.hostile.judging import SECRET, SECRET_ENV, attack, describe, expect

SOURCE = attack("""
import os
import torch

print("ENV", dict(os.environ))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for what in ("environ", "cmdline"):
            try:
                print("PROC", pid, what, open(f"/proc/{pid}/{what}", "rb").read())
            except OSError as exc:
                print("blocked", pid, what, exc)
print(os.environ["NAME"])
""")


def test_the_platforms_environment_never_reaches_the_contestant(hostile, platform):
    report = hostile(SOURCE.replace("NAME", SECRET_ENV))
    expect(report, "error", f"'{SECRET_ENV}'")
    assert SECRET not in report.logs, describe(report)

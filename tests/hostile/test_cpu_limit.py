"""Attack: burn CPU time with busy threads inside a call whose time limit is long. Expected: error, the
contestant dies of SIGXCPU and the verdict names the CPU limit. (The CPU limit is lowered with
RUNNER_LIMITS so that it is reached before the limit per call.)"""

from tests.hostile.judging import expect

SOURCE = """
import threading


def spin():
    while True:
        pass


def custom_kernel(data):
    for _ in range(3):
        threading.Thread(target=spin, daemon=True).start()
    spin()
"""


def test_busy_threads_hit_the_cpu_limit(hostile):
    report = hostile(SOURCE, call_s=120, limits={"cpu_s": 12})
    expect(report, "error", "SIGXCPU: it used its 12 s of CPU time (the CPU limit)")

"""Attack: leave busy threads running after custom_kernel returns (work that escapes the timer, or a CPU
hog for the next call). Expected: they buy nothing and cost the submission: frozen with the rest of it
between windows, their CPU time inside a window is charged to it, the report records them as evidence,
and they die with the job."""

from tests.hostile.judging import describe

SOURCE = """
import threading
import torch


def spin():
    x = torch.rand(128, 128)
    while True:
        x @ x  # torch releases the GIL: a second core kept busy


started = []


def custom_kernel(data):
    if not started:  # at the first call, once
        started.append(True)
        for _ in range(2):
            threading.Thread(target=spin, daemon=True).start()
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_threads_left_running_buy_nothing_are_recorded_and_die_with_the_job(hostile):
    report = hostile(SOURCE, mode="benchmark")
    assert report.verdict == "passed" and report.flags == [], describe(report)
    threads = report.env["contestant_threads"]
    assert threads["most"] >= threads["after_import"] + 2, threads
    timed = [c for c in report.cases if c.stats]
    assert any(c.stats.charged_windows > 0 for c in timed), describe(report)  # their CPU time is charged

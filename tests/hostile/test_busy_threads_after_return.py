"""Attack: leave busy threads running after custom_kernel returns (work that escapes the timer, or a CPU
hog for the next call). Expected: flagged, naming the threads; they die with the job."""

from tests.hostile.judging import describe, one_line

SOURCE = '''
import threading
import torch


def spin():
    while True:
        pass


def custom_kernel(data):
    for _ in range(2):
        threading.Thread(target=spin, daemon=True).start()
    A, B, C = data
    return torch.add(A, B, out=C)
'''


def test_threads_left_running_are_flagged_and_die_with_the_job(hostile):
    report = hostile(SOURCE)
    assert report.verdict == "flagged", describe(report)
    assert "thread(s)" in one_line(report), describe(report)

"""Attack: reach the outside world (exfiltrate the inputs, fetch answers): TCP to a public address and a
DNS lookup. Expected: error, "Network is unreachable": the sandbox's network namespace has no route out."""

from tests.hostile.judging import describe, one_line

SOURCE = """
import socket
import torch

try:
    print("resolved", socket.getaddrinfo("example.com", 80))
except OSError as exc:
    print("no DNS:", exc)
socket.create_connection(("1.1.1.1", 80), timeout=5)


def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_connecting_outside_fails_at_once(hostile):
    report = hostile(SOURCE)
    assert report.verdict == "error", describe(report)
    assert "Network is unreachable" in one_line(report), describe(report)
    assert "resolved" not in report.logs, describe(report)

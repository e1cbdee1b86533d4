"""Attack: reach the outside world (exfiltrate the inputs, fetch answers): TCP to a public address and a
DNS lookup. Expected: error, "Network is unreachable": the sandbox's network namespace has no route out."""

from tests.hostile.judging import attack, describe, expect

SOURCE = attack("""
import socket
import torch

try:
    print("resolved", socket.getaddrinfo("example.com", 80))
except OSError as exc:
    print("no DNS:", exc)
socket.create_connection(("1.1.1.1", 80), timeout=5)
""")


def test_connecting_outside_fails_at_once(hostile):
    report = hostile(SOURCE)
    expect(report, "error", "Network is unreachable")
    assert "resolved" not in report.logs, describe(report)

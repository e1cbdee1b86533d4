"""Threat 13: the static scanner runs before every job and its findings travel on the report, for a
hostile file that runs (and is stopped by the sandbox) as for one refused before running."""

from tests.hostile.judging import attack, describe

SOURCE = attack("""
import ctypes
import socket
import subprocess
import torch

print(open("/proc/self/status").read())
""")


def test_the_scanner_records_a_hostile_files_red_flags(hostile):
    report = hostile(SOURCE)
    assert report.verdict == "passed", describe(report)  # it only looks: the scanner warns, the checks decide
    rules = {f["rule"] for f in report.scan}
    assert {"ctypes", "network", "threads", "proc"} <= rules, report.scan
    assert all(f["line"] and f["why"] for f in report.scan)


def test_the_scanner_runs_on_a_file_refused_before_running(hostile):
    report = hostile(SOURCE + "\ndef broken(:\n")
    assert report.verdict == "rejected", describe(report)
    assert {"ctypes", "network"} <= {f["rule"] for f in report.scan}

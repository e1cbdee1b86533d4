"""The command line, as a user runs it: `python -m runner run PROBLEM FILE ...`."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "problems/vectoradd/templates/pytorch.py"
WRONG = ROOT / "problems/vectoradd/solutions/wrong/wrong_dtype.py"


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "runner", *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def test_leaderboard_json_report_has_the_documented_schema():
    out = run(
        "run",
        "vectoradd",
        str(CORRECT),
        "--mode",
        "leaderboard",
        "--device",
        "cpu",
        "--json",
        "--case-budget",
        "0.1",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "passed"
    assert report["score_s"] > 0
    for key in ("cases", "flags", "env", "logs", "limits", "handshake_s", "scan", "isolation"):
        assert key in report
    case = next(c for c in report["cases"] if c["kind"] == "secret")
    assert set(case) >= {"id", "status", "message", "stats"}
    assert set(case["stats"]) >= {"n", "mean", "std", "stderr", "min", "max", "flops_per_s", "bytes_per_s"}
    assert case["stats"]["min"] <= case["stats"]["mean"] <= case["stats"]["max"]
    assert report["env"]["torch"] and report["env"]["python"] and report["env"]["seed"].startswith("sha256:")


def test_text_report_reads_like_pytest_and_exit_status_is_1_when_failed():
    out = run("run", "vectoradd", str(WRONG), "--mode", "test")
    assert out.returncode == 1
    assert "vectoradd[size=31] (test)  FAILED" in out.stdout
    assert "custom_kernel returned a float32 tensor; expected float16" in out.stdout
    assert "=== FAILED:" in out.stdout


def test_bad_usage_exits_2_with_a_message():
    out = run("run", "nosuchproblem", str(CORRECT))
    assert out.returncode == 2
    assert "there is no problem called 'nosuchproblem'" in out.stderr
    out = run("run", "vectoradd", "/nonexistent/file.py")
    assert out.returncode == 2
    assert "cannot read /nonexistent/file.py" in out.stderr
    out = run("run", "vectoradd", str(CORRECT), "--mode", "fast")
    assert out.returncode == 2

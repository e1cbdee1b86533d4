"""scripts/gpu_check.sh fits one lease of the lent GPU machine: its dry run, on this machine, checks the plan
(every step timed out on its own, all within 8 minutes), what travels (within 64 MiB) and that the runner
imports nothing the machine lacks. The check itself needs a GPU."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gpu_check  # noqa: E402  (scripts/ is no package)


def test_the_dry_run_holds_and_leaves_its_json(tmp_path):
    done = subprocess.run(
        ["bash", "scripts/gpu_check.sh", "--dry-run", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((tmp_path / "gpu_check.json").read_text())
    assert result["problems"] == []
    assert result["timeouts_total_s"] <= 480 and result["travelling_mib"] <= 64
    names = [s["name"] for s in result["steps"]]
    assert {"device", "cuda-inline", "cheats", "fidelity", "ncu", "leaderboard-trimul"} <= set(names)
    assert all(s["timeout_s"] > 0 for s in result["steps"])
    assert result["not_checked"]  # and it says what it cannot check


def test_a_report_is_kept_as_its_verdict_and_energy():
    report = {
        "verdict": "passed",
        "message": "",
        "score_s": 1e-5,
        "flags": [],
        "env": {"device_kind": "h100", "nvml": "uuid GPU-1"},
        "cases": [{"stats": {"mean": 1e-3, "joules_per_call": 0.3}}, {"stats": None}],
        "profiles": [],
    }
    kept = gpu_check.summarize(json.dumps(report, indent=2) + "\nthe judge's stderr {\n")
    assert kept["verdict"] == "passed" and kept["device_kind"] == "h100"
    assert kept["watts"] == [300.0] and kept["watts_plausible"] is True
    assert gpu_check.summarize("Traceback ...")["report"] is None

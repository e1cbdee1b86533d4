"""The GPU check that fits one lease of the lent machine (scripts/gpu_check.sh runs it; docs/harness.md,
"The GPU check"). Standard library only, so that it starts on the machine as it is (python3 3.12, torch 2.11,
triton 3.6, no Django); the steps import the runner in processes of their own.

    python3 scripts/gpu_check.py [--dry-run] RESULTS_DIR

Every step has its own timeout and the whole plan fits BUDGET_S; the results are written to
RESULTS_DIR/gpu_check.json after each step (so a lease cut short still leaves what was done) and the steps'
output to RESULTS_DIR/gpu_check.log: two files, within what the lent machine hands back (8 files).
--dry-run, on any machine: checks the plan, the size of what travels to the machine, and that the runner
imports nothing the machine lacks, and says what it cannot check.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 480  # the whole check, the bound: one lease is 15 minutes, start-up included
CARRY_LIMIT = 64 << 20  # what the lent machine receives: the working tree and the carried folders
WHEELS = ROOT / ".whl"  # carried wheels, installed by gpu_check.sh before this runs
# What the machine's python3 has (KINDS.md's package list), besides the standard library
ON_THE_MACHINE = {"torch", "triton", "numpy", "yaml", "pytest"}
OURS = {"runner", "problems", "tests", "scripts", "task", "utils", "reference", "submission", "problem"}
SANDBOX = os.environ.get("GPU_CHECK_SANDBOX", "none")  # none: the lent machine has neither docker nor bwrap
PY = sys.executable


def _run(problem: str, path: str, mode: str, *extra: str) -> list[str]:
    return [PY, "-m", "runner", "run", problem, path, "--mode", mode, "--device", "cuda", "--json",
            "--sandbox", SANDBOX, "--allow-unisolated", *extra]  # fmt: skip


def plan() -> list[dict]:
    """The steps, in order of what a short lease should learn first: name, timeout, command, and what it
    proves."""
    steps = [
        {"name": "device", "timeout_s": 20, "proves": "the part, its kind and flush size, NVML found by UUID",
         "argv": [PY, str(ROOT / "scripts" / "gpu_check.py"), "--device-facts"]},
        {"name": "units", "timeout_s": 30, "proves": "the GPU path's pure parts under the machine's versions",
         "argv": [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:django",
                  "tests/runner/test_gpu_parts.py", "tests/runner/test_gpu_slots.py", "tests/runner/test_cuda_builds.py", "tests/runner/test_timing.py", "tests/runner/test_floors.py", "tests/runner/test_transport.py"]},
    ]  # fmt: skip
    for problem in sorted(p.name for p in (ROOT / "problems").iterdir() if (p / "problem.py").exists()):
        steps.append(
            # TriMul's large cases and 18 tests take longest; its memory peak is one of the figures asked for
            {"name": f"leaderboard-{problem}", "timeout_s": 50 if problem == "trimul" else 25, "report": True,
             "memory": True,
             "proves": "one correct solution passes in leaderboard mode; GPU memory peak; energy per call",
             "argv": _run(problem, f"problems/{problem}/templates/pytorch.py", "leaderboard", "--case-budget", "0.2")}
        )  # fmt: skip
    steps += [
        {"name": "cuda-inline", "timeout_s": 80, "report": True,
         "proves": "a load_inline CUDA kernel builds in the contestant (nvcc and ninja on its PATH) and passes",
         "argv": _run("vectoradd", "problems/vectoradd/solutions/correct/cuda_inline.py", "test")},
        {"name": "cheats", "timeout_s": 90, "env": {"RUNNER_SANDBOX": SANDBOX},
         "proves": "the golden cheats are caught on the GPU (vectoradd), the GPU cheats (skipped sync, side stream, stale graph, reading past the slot) too",
         "argv": [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:django", "-m", "gpu",
                  "tests/runner/test_gpu.py", "-k", "cheats_are_caught_on_the_gpu and vectoradd or side_stream or gpu_cheats or slot_memory"]},
        {"name": "fidelity", "timeout_s": 50, "fails_on": "did not pass",  # bench exits 0 regardless
         "proves": "the judge's per-call time against an independent measurement, vectoradd and trimul",
         "argv": [PY, "-m", "runner.bench", "fidelity", "--device", "cuda", "--runs", "1", "--case-budget", "0.2",
                  "--problems", "vectoradd,trimul", "--sandbox", SANDBOX]},
        {"name": "ncu", "timeout_s": 60, "report": True,
         "proves": "profile mode's Nsight Compute summary",
         "argv": _run("vectoradd", "problems/vectoradd/templates/pytorch.py", "profile", "--case-budget", "0.1")},
    ]  # fmt: skip
    return steps


def device_facts() -> dict:
    """Printed by the `device` step, on the GPU: what the runner makes of this device."""
    import torch
    import triton

    from runner.floors import device_kind_from_name, flush_bytes, kind_mismatch
    from runner.judge import envinfo

    name = torch.cuda.get_device_name()
    props = torch.cuda.get_device_properties(0)
    kind = device_kind_from_name(name)
    nvml, why = envinfo.Nvml.open(lambda: __import__("ctypes").CDLL("libnvidia-ml.so.1"))
    energy = [nvml.energy_mj() if nvml else None]
    if nvml:
        time.sleep(0.2)
        energy.append(nvml.energy_mj())
    return {
        "torch": torch.__version__, "cuda": torch.version.cuda, "triton": triton.__version__,
        "name": name, "kind": kind, "mismatch_h100": kind_mismatch("h100", name),
        "l2_bytes": props.L2_cache_size, "flush_bytes": flush_bytes(kind, props.L2_cache_size),
        "cuda_ids": envinfo.cuda_device_ids(), "nvml_found": nvml.found if nvml else None, "nvml_why_not": why,
        "energy_mj_0.2s_apart": energy, "memory_bytes": props.total_memory,
    }  # fmt: skip


class MemoryPeak:
    """The GPU's memory in use, sampled by nvidia-smi every 100 ms while a step runs: its peak, in MiB."""

    def __init__(self) -> None:
        self.peak: int | None = None
        try:
            self.proc: subprocess.Popen | None = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-lms", "100"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            )  # fmt: skip
        except OSError:
            self.proc = None
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip().isdigit():
                self.peak = max(self.peak or 0, int(line))

    def stop(self) -> int | None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        return self.peak


def summarize(text: str) -> dict:
    """What a runner report (--json) says, in the few figures the check keeps: verdict, score, energy."""
    start = text.find("{\n")  # the report, then whatever the judge's stderr said
    try:
        report = json.JSONDecoder().raw_decode(text[start:])[0] if start >= 0 else None
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, dict):
        return {"report": None}
    cases = report.get("cases") or []
    watts = []
    for c in cases:
        s = c.get("stats") or {}
        if s.get("joules_per_call") and s.get("mean"):
            watts.append(s["joules_per_call"] / s["mean"])
    return {
        "verdict": report.get("verdict"), "message": report.get("message"), "score_s": report.get("score_s"),
        "flags": [f.get("kind") for f in report.get("flags") or []],
        "device_kind": (report.get("env") or {}).get("device_kind"), "nvml": (report.get("env") or {}).get("nvml"),
        # energy sanity: the mean power of each timed case, which an H100 or H200 keeps within 0-700 W
        "watts": [round(w, 1) for w in watts], "watts_plausible": all(0 < w <= 1000 for w in watts) if watts else None,
        "ncu": [bool(p.get("ncu")) for p in report.get("profiles") or []],
    }  # fmt: skip


def run(out: Path) -> int:
    results: dict = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "budget_s": BUDGET_S, "steps": []}
    log = (out / "gpu_check.log").open("w")
    deadline = time.monotonic() + BUDGET_S
    for step in plan():
        left = deadline - time.monotonic()
        entry = {"name": step["name"], "proves": step["proves"]}
        if left < 5:
            entry["status"] = "skipped: out of the check's time"
        else:
            timeout = min(step["timeout_s"], left)
            memory = MemoryPeak() if step.get("memory") else None
            started = time.monotonic()
            try:
                done = subprocess.run(
                    step["argv"], cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=timeout,
                    env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                         **step.get("env", {})},
                )  # fmt: skip
                text = done.stdout + done.stderr
                failed = done.returncode != 0 or step.get("fails_on", "\0") in text
                entry["status"] = "failed" if failed else "passed"
            except subprocess.TimeoutExpired as exc:
                text = (
                    exc.stdout.decode(errors="replace")
                    if isinstance(exc.stdout, bytes)
                    else (exc.stdout or "")
                )
                entry["status"] = f"timed out after {timeout:.0f} s"
            entry["seconds"] = round(time.monotonic() - started, 1)
            if memory is not None:
                entry["gpu_memory_peak_mib"] = memory.stop()
            if step.get("report"):
                entry.update(summarize(text))
            elif step["name"] == "device" and entry["status"] == "passed":
                entry["facts"] = json.loads(text.strip().splitlines()[-1])
            else:
                entry["tail"] = text[-3000:]
            log.write(f"==== {step['name']} ({entry['status']}, {entry['seconds']} s)\n{text}\n")
            log.flush()
        results["steps"].append(entry)
        (out / "gpu_check.json").write_text(json.dumps(results, indent=2))
        print(f"{entry['name']:28s} {entry['status']}", flush=True)
    return 0 if all(s["status"] == "passed" for s in results["steps"]) else 1


# ---- the dry run --------------------------------------------------------------------------------------------


def travelling_bytes() -> int:
    """What the lent machine receives: the files git tracks or would track, and the carried wheels."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True
    ).stdout.split(b"\0")
    files = [ROOT / os.fsdecode(p) for p in listed if p] + (
        list(WHEELS.glob("*.whl")) if WHEELS.exists() else []
    )
    return sum(f.stat().st_size for f in files if f.is_file())


def imports_the_machine_lacks() -> list[str]:
    """Module-level imports of runner/ that are neither the standard library, this project, the machine's
    packages nor a carried wheel: each would stop the runner from importing there. Imports inside functions
    (the docker backend's SDK) are left out: the check never reaches them."""
    wheels = {w.name.split("-")[0].lower() for w in WHEELS.glob("*.whl")} if WHEELS.exists() else set()
    allowed = set(sys.stdlib_module_names) | OURS | ON_THE_MACHINE | wheels
    missing = []
    for path in sorted((ROOT / "runner").rglob("*.py")):
        tree = ast.parse(path.read_text(), feature_version=(3, 12))  # the machine's Python
        for node in tree.body:
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            missing += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] not in allowed]
    return missing


def dry_run(out: Path) -> int:
    steps = plan()
    problems: list[str] = []
    for s in steps:
        if "timeout_s" not in s or s["timeout_s"] <= 0:
            problems.append(f"step {s['name']} has no timeout")
        for arg in s["argv"]:
            if arg.endswith(".py") and not (ROOT / arg).exists() and not Path(arg).exists():
                problems.append(f"step {s['name']}: {arg} does not exist")
    total = sum(s["timeout_s"] for s in steps)
    if total > BUDGET_S:
        problems.append(f"the steps' timeouts add up to {total} s, over the check's {BUDGET_S} s")
    size = travelling_bytes()
    if size > CARRY_LIMIT:
        problems.append(
            f"{size / 2**20:.1f} MiB would travel to the machine, over its {CARRY_LIMIT >> 20} MiB"
        )
    problems += [f"the machine lacks {m}" for m in imports_the_machine_lacks()]
    # the runner's command lines, parsed by their own parsers here
    for s in steps:
        if s["argv"][1:3] == ["-m", "runner"]:
            from runner.cli import _parser

            try:
                _parser().parse_args(s["argv"][3:])
            except SystemExit:
                problems.append(f"step {s['name']}: the runner's command line refuses {s['argv'][3:]}")
    result = {
        "dry_run": True, "steps": [{k: v for k, v in s.items() if k != "env"} for s in steps],
        "timeouts_total_s": total, "budget_s": BUDGET_S, "travelling_mib": round(size / 2**20, 2),
        "problems": problems,
        "not_checked": [
            "that torch 2.11 and triton 3.6 have every API the runner calls (neither can be installed here: "
            "no network; the `units` step is the first to find out there)",
            "CUDA itself: IPC slots, NVML's answers, nvcc and ncu, the steps' real durations",
            "bubblewrap on the machine (the check judges with --sandbox none; set GPU_CHECK_SANDBOX=bwrap to try it)",
        ],
    }  # fmt: skip
    (out / "gpu_check.json").write_text(json.dumps(result, indent=2))
    for s in steps:
        print(f"{s['name']:28s} {s['timeout_s']:4d} s  {s['proves']}")
    print(f"timeouts {total} s of {BUDGET_S} s; {size / 2**20:.1f} MiB travels of {CARRY_LIMIT >> 20} MiB")
    print("\n".join(f"PROBLEM: {p}" for p in problems) or "the plan holds")
    return 1 if problems else 0


def main() -> int:
    args = sys.argv[1:]
    sys.path.insert(0, str(ROOT))
    if args == ["--device-facts"]:
        print(json.dumps(device_facts()))
        return 0
    dry = "--dry-run" in args
    rest = [a for a in args if a != "--dry-run"]
    out = Path(rest[0] if rest else os.environ.get("GPU_CHECK_OUT", "gpu_check_results")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    return dry_run(out) if dry else run(out)


if __name__ == "__main__":
    sys.exit(main())

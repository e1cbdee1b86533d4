"""The judge reports each case as it finishes: a signed `case` frame read off its stream while it runs, handed
to execute()'s `on_progress` once per case, in order, by every backend; a callback that fails never breaks
the judging. The report stays the verdict (tests/runner/test_seal.py checks the frames themselves)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from runner import JobSpec, execute
from runner.sandbox import RUNNER_ROOT

pytestmark = pytest.mark.judge

CORRECT = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
WRONG = CORRECT.replace("torch.add(A, B, out=C)", "torch.sub(A, B, out=C)")


@pytest.fixture(autouse=True)
def own_sandbox_space(monkeypatch):
    """Other test runs share this machine: lease uids of our own and keep job directories apart."""
    monkeypatch.setenv("RUNNER_SANDBOX_UID_BASE", str(3_100_000 + (os.getpid() % 30_000) * 8))
    monkeypatch.setenv("RUNNER_SANDBOX_UID_COUNT", "8")
    jobs = Path(tempfile.mkdtemp(prefix="kb-progress-test-", dir="/tmp"))
    jobs.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(jobs))
    yield
    shutil.rmtree(jobs, ignore_errors=True)


def backends() -> list:
    out = [pytest.param("none", id="none")]
    out.append(
        pytest.param(
            "bwrap",
            id="bwrap",
            marks=pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap"),
        )
    )
    out.append(pytest.param("docker", id="docker", marks=pytest.mark.docker))
    return out


def judged(sandbox: str, source: str, on_progress):
    if sandbox == "docker":
        from tests.containers import engine

        engine.require()
    spec = JobSpec(problem="vectoradd", source=source, mode="test", device="cpu", sandbox=sandbox)
    return execute(spec, on_progress=on_progress)


@pytest.mark.parametrize("sandbox", backends())
def test_on_progress_hears_each_case_once_in_order_while_the_judge_runs(sandbox):
    calls: list[tuple[dict, str]] = []
    report = judged(sandbox, CORRECT, lambda p: calls.append((p, threading.current_thread().name)))
    assert report.verdict == "passed", report.message
    total = len(report.cases)
    assert total > 1
    assert [p for p, _ in calls] == [
        {
            "done": i,
            "total": total,
            "case": c.id,
            "status": c.status,
            "kind": "test",  # test mode: one phase, untimed
            "kind_done": i,
            "kind_total": total,
            "median_s": None,
        }
        for i, c in enumerate(report.cases, start=1)
    ]
    # Heard while the judge ran, off its stream as it arrived: not replayed from the report afterwards.
    assert all(thread != threading.main_thread().name for _, thread in calls) or sandbox == "docker"


def test_leaderboard_progress_names_each_phase_and_each_timed_cases_median():
    """Tests, benchmarks, then the secret run: each frame says its phase, its place in it and, when timed,
    the median seconds per call that the report holds; never an input or a seed."""
    heard: list[dict] = []
    spec = JobSpec(
        problem="vectoradd",
        source=CORRECT,
        mode="leaderboard",
        device="cpu",
        sandbox="none",
        allow_unisolated=True,
        case_budget_s=0.2,
    )
    report = execute(spec, on_progress=heard.append)
    assert report.verdict == "passed", report.message
    assert [(p["kind"], p["case"]) for p in heard] == [(c.kind, c.id) for c in report.cases]
    assert [p["kind"] for p in heard] == sorted(
        (p["kind"] for p in heard), key=["test", "benchmark", "secret"].index
    )
    for kind in ("test", "benchmark", "secret"):
        of_kind = [p for p in heard if p["kind"] == kind]
        assert of_kind, kind
        assert [p["kind_done"] for p in of_kind] == list(range(1, len(of_kind) + 1))
        assert {p["kind_total"] for p in of_kind} == {len(of_kind)}
    for p, c in zip(heard, report.cases, strict=True):
        if c.kind == "test":
            assert p["median_s"] is None
        else:
            assert p["median_s"] == c.stats.median and p["median_s"] > 0
        assert set(p) == {"done", "total", "case", "status", "kind", "kind_done", "kind_total", "median_s"}
        assert "seed" not in p["case"]


@pytest.mark.parametrize("sandbox", [p for p in backends() if p.id != "docker"])
def test_a_failing_callback_never_breaks_the_judging(sandbox, caplog):
    heard = []

    def explode(progress):
        heard.append(progress["done"])
        raise RuntimeError("the database is down")

    report = judged(sandbox, WRONG, explode)
    # Test mode runs every case; each fails, and each is heard although the callback raised every time.
    assert report.verdict == "failed", report.message
    assert heard == list(range(1, len(report.cases) + 1))
    assert [c.status for c in report.cases] == ["failed"] * len(report.cases)
    assert "the progress callback failed" in caplog.text


# Writes a case frame of its own making (it has no key) into every stream of the judge and of its caller
# that it can open, and lets the judge run on.
FORGE_CASE = """

import os as _os

_FORGED = b'KB1 case 69 ' + b'0' * 64 + b'\\n{"done": 1, "total": 1, "case": "forged", "status": "passed"}'
_honest_kernel = custom_kernel


def custom_kernel(data):
    pid = _os.getpid()
    for _ in range(4):
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        for fd in range(64):
            try:
                target = _os.open(f"/proc/{pid}/fd/{fd}", _os.O_WRONLY | _os.O_NONBLOCK)
            except OSError:
                continue
            try:
                _os.write(target, _FORGED)
            except OSError:
                pass
            _os.close(target)
    return _honest_kernel(data)
"""


@pytest.mark.parametrize("sandbox", [p for p in backends() if p.id != "docker"])
def test_a_forged_case_frame_is_never_heard_nor_believed(sandbox):
    heard: list[dict] = []
    report = judged(sandbox, CORRECT + FORGE_CASE, heard.append)
    assert all(p["case"] != "forged" for p in heard), heard
    assert [p["done"] for p in heard] == list(range(1, len(heard) + 1))
    # Where the forgery reached the stream the whole run is untrusted (its own error); else it passed.
    assert report.verdict in ("passed", "error"), report.message
    if report.verdict == "error":
        assert "without a valid report from the judge" in report.message and not report.platform_fault

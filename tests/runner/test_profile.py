"""Profile mode, for real: vectoradd's benchmark cases, three checked calls each under the torch profiler, on
the none and bwrap backends; a wrong kernel's profile says it is wrong; a contestant that sends its own
hostile table gets it checked, capped and made harmless; a profile run has no score.

The GPU path (CUDA activities in the profiler, Nsight Compute's summary) needs an NVIDIA GPU and is not
run here: tests/runner/test_gpu.py covers the GPU judge; the CPU path below shares every line of the
judge's side (runner/judge/profile.py) with it."""

import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch

from runner import JobSpec, execute
from runner.judge import profile as judge_profile
from runner.sandbox import RUNNER_ROOT
from runner.vocabulary import PROFILE_CALLS

CORRECT = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
WRONG = (RUNNER_ROOT / "problems/vectoradd/solutions/wrong/wrong_values.py").read_text()
needs_root_and_bwrap = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root (dedicated uids) and bubblewrap"
)

# The submission replaces its own harness's table (the contestant runs as __main__): every kind of
# hostile table a contestant can send.
HOSTILE = """
import sys
import torch

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)

def table(self):
    rows = [{"name": "=HYPERLINK(\\"http://evil\\")", "calls": 1, "self_cpu_us": 9e9, "cpu_us": 9e9},
            {"name": "<script>alert(1)</script>\\x1b[31m", "calls": 2, "self_cpu_us": 8e9, "cpu_us": 8e9},
            {"name": "@SUM(A1)", "calls": 3, "self_cpu_us": 7e9, "cpu_us": 7e9},
            {"name": "\\tx", "calls": 3, "self_cpu_us": 6e9, "cpu_us": 6e9}]
    rows += [{"name": "op" + "x" * SIZE + str(i), "calls": i, "self_cpu_us": float(i), "cpu_us": 1.0}
             for i in range(300)]
    return {"device": "cpu", "rows": rows, "more": 0}

sys.modules["__main__"].OperatorProfile.table = table
"""
MALFORMED = """
import sys
import torch

def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)

sys.modules["__main__"].OperatorProfile.table = lambda self: {"rows": [{"name": 5, "calls": "many"}]}
"""


@pytest.fixture
def bwrap_space(monkeypatch):
    """Other test runs share this machine: uids of our own and job directories apart (as test_sandbox_bwrap)."""
    monkeypatch.setenv("RUNNER_SANDBOX_UID_BASE", str(3_100_000 + (os.getpid() % 30_000) * 8))
    monkeypatch.setenv("RUNNER_SANDBOX_UID_COUNT", "8")
    jobs = Path(tempfile.mkdtemp(prefix="kb-profile-test-", dir="/tmp"))
    jobs.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(jobs))
    yield
    shutil.rmtree(jobs, ignore_errors=True)


def profile(source: str, sandbox: str = "none"):
    return execute(JobSpec(problem="vectoradd", source=source, mode="profile", sandbox=sandbox))


def assert_real_profile(report):
    assert report.verdict == "passed", report.message
    assert report.score_s is None  # untimed, never scored
    benchmarks = [c for c in report.cases if c.kind == "benchmark"]
    assert benchmarks and all(c.stats is None for c in benchmarks)
    assert [p["case"] for p in report.profiles] == [c.id for c in benchmarks]
    for entry in report.profiles:
        assert f"{PROFILE_CALLS} call(s) of custom_kernel on cpu, outputs checked and right" in entry["text"]
        assert "aten::add" in entry["text"]
        rows = {r["operator"]: r for r in csv.DictReader(io.StringIO(entry["csv"]))}
        assert int(rows["custom_kernel"]["calls"]) == PROFILE_CALLS  # one record_function per call
        assert int(rows["aten::add"]["calls"]) == PROFILE_CALLS
        assert float(rows["aten::add"]["cpu_us"]) > 0
        assert entry["ncu"] == ""  # Nsight Compute is for GPUs


@pytest.mark.judge
def test_a_profile_on_the_none_backend_names_the_real_aten_operators_of_each_case():
    assert_real_profile(profile(CORRECT))


@pytest.mark.judge
@needs_root_and_bwrap
def test_a_profile_on_the_bwrap_backend_names_the_real_aten_operators_of_each_case(bwrap_space):
    report = profile(CORRECT, "bwrap")
    assert "bwrap" in report.isolation or "bubblewrap" in report.isolation
    assert_real_profile(report)


@pytest.mark.judge
def test_a_wrong_kernels_profile_says_it_is_wrong():
    report = profile(WRONG)
    assert report.verdict == "failed"
    assert report.score_s is None
    assert report.profiles, "the failing case's profile is still reported"
    assert "outputs WRONG (wrong output on call" in report.profiles[0]["text"]
    assert "skipped" in [c.status for c in report.cases]  # as in benchmark mode, the rest are skipped


@pytest.mark.judge
def test_a_hostile_table_is_capped_and_made_harmless():
    report = profile("SIZE = 2000" + HOSTILE)  # 600 kB: under the channel's cap on one reply
    assert report.verdict == "passed"  # the outputs were right; the table is only data
    for entry in report.profiles:
        rows = list(csv.reader(io.StringIO(entry["csv"])))
        header, body = rows[0], rows[1:]
        assert header[0] == "operator"
        assert len(body) == judge_profile.MAX_ROWS
        names = [r[0] for r in body]
        assert names[0] == '\'=HYPERLINK("http://evil")'  # a spreadsheet shows it as text
        assert "'@SUM(A1)" in names and " x" in names  # a tab is no printable character
        assert not any(n[0] in "=+-@\t\r" for n in names)
        assert all(len(n) <= judge_profile.MAX_NAME + 1 for n in names)
        assert "\x1b" not in entry["text"] and "\x1b" not in entry["csv"]
        assert len(entry["text"]) < 40_000
        # The text is plain text: the page escapes it (tests/leaderboard/web/test_profile_page.py).
        assert "<script>alert(1)</script>" in entry["text"]


@pytest.mark.judge
def test_a_table_over_the_channels_cap_breaks_the_protocol_with_a_clear_message():
    report = profile("SIZE = 20_000" + HOSTILE)  # 6 MB
    assert report.verdict == "failed"
    assert "broke the judge's protocol: a reply of" in report.message
    assert report.profiles == []


@pytest.mark.judge
def test_a_malformed_table_is_reported_as_such_and_the_run_judged_on_its_outputs():
    report = profile(MALFORMED)
    assert report.verdict == "passed"
    assert all("sent a malformed profile" in p["text"] and p["csv"] == "" for p in report.profiles)


@pytest.mark.judge
def test_the_command_line_prints_the_tables_and_writes_the_csvs(tmp_path):
    submission = tmp_path / "submission.py"
    submission.write_text(CORRECT)
    out = subprocess.run(
        [sys.executable, "-m", "runner", "run", "vectoradd", str(submission), "--mode", "profile"]
        + ["--sandbox", "none", "--profile-csv", str(tmp_path / "csv")],
        capture_output=True,
        text=True,
        cwd=RUNNER_ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Self CPU (us)" in out.stdout and "aten::add" in out.stdout
    files = sorted((tmp_path / "csv").glob("*.csv"))
    assert [f.name for f in files] == sorted(f"{f.stem}.csv" for f in files) and files
    assert all(f.read_text().startswith("operator,calls,") for f in files)
    assert "vectoradd_size=" in files[0].name


def test_checking_refuses_what_is_not_a_table_and_keeps_numbers_honest():
    for raw in (None, [], {"rows": "x"}, {"rows": [{"name": "a", "calls": -1}]}):
        with pytest.raises(judge_profile.MalformedProfile):
            judge_profile.checked(raw, "cpu")
    for bad in (float("nan"), float("inf"), -1.0, "1", 10**400, -(10**400)):
        with pytest.raises(judge_profile.MalformedProfile):
            judge_profile.checked({"rows": [{"name": "a", "calls": 1, "cpu_us": bad}]}, "cpu")
    rows = judge_profile.checked(
        {
            "rows": [
                {"name": "a", "calls": 1, "self_device_us": 1.0},
                {"name": "b", "calls": 1, "self_device_us": 5.0},
            ]
        },
        "cuda",
    )
    assert [r["name"] for r in rows] == ["b", "a"]  # on a GPU the kernels' own device time orders them
    assert "Self CUDA (us)" in judge_profile.render_text(rows, "cuda", "h")
    assert "self_device_us" in judge_profile.render_csv(rows, "cuda").splitlines()[0]


def test_a_profile_run_is_never_scored():
    from runner.judge.verdict import summarize
    from runner.spec import CaseResult, Stats

    timed = Stats(n=1, windows=1, mean=1e-3, std=0, stderr=0, min=1e-3, max=1e-3, median=1e-3)
    case = CaseResult(id="c", kind="benchmark", status="passed", stats=timed)
    assert summarize(stopped=None, cases=[case], flags=[], mode="benchmark")[2] == pytest.approx(1e-3)
    assert summarize(stopped=None, cases=[case], flags=[], mode="profile") == ("passed", "", None)


FAKE_NCU = """#!/bin/sh
# A stand-in for Nsight Compute (no GPU here): records its arguments, makes the report it was asked to
# export, and prints a summary or a CSV for --import, one kernel named by the submission.
echo "$@" >> "$NCU_ARGS"
case "$*" in
  *--export*) for a in "$@"; do [ "$prev" = "--export" ] && touch "$a.ncu-rep"; prev="$a"; done ;;
  *--csv*) printf '"Kernel Name","Metric Name","Metric Value"\\n"=HYPERLINK(1)","Duration","4.2"\\n' ;;
  *--print-summary*) echo "add_kernel  Duration 4.2 us" ;;
  *) echo "Section: GPU Speed Of Light Throughput" ;;
esac
"""


def test_nsight_compute_gives_each_case_a_text_and_a_safe_csv_with_the_speed_of_light(tmp_path, monkeypatch):
    from runner.contestant import harness as contestant

    (tmp_path / "ncu").write_text(FAKE_NCU)
    (tmp_path / "ncu").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("NCU_ARGS", str(tmp_path / "args"))
    monkeypatch.setitem(sys.modules, "submission", type(sys)("submission"))
    sys.modules["submission"].__file__ = str(tmp_path / "submission.py")
    raw = contestant.nsight_summary(torch.ones(4), "cuda")
    assert raw is not None
    calls = (tmp_path / "args").read_text().splitlines()
    assert "--section SpeedOfLight" in calls[0] and "--replay" in calls[0]
    assert all("--import" in c for c in calls[1:]) and len(calls) == 4
    entry = judge_profile.profile_of(
        "vectoradd[size=256]",
        PROFILE_CALLS,
        "checked and right",
        {"profile": {"device": "cuda", "rows": [], "more": 0}, "ncu": raw},
        "cuda",
    )
    assert "add_kernel" in entry["ncu"] and "Speed Of Light" in entry["ncu"]
    rows = list(csv.reader(io.StringIO(entry["ncu_csv"])))
    assert rows[1] == ["'=HYPERLINK(1)", "Duration", "4.2"]  # a kernel's name never becomes a formula
    assert contestant.nsight_summary(torch.ones(4), "cpu") is None

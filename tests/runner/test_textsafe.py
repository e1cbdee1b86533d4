"""Contestant text is data (runner/textsafe.py): what a submission prints or raises reaches every reader of
its report as valid, printable Unicode, capped; the report is checked against its schema before it is signed
and before it is believed. The judge tests run the real judge on kernels that print and raise hostile text."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from runner import textsafe
from runner.caller import execute
from runner.report import render
from runner.spec import CaseResult, JobSpec, RunReport, Stats, report_problems
from tests.runner import golden

ROOT = golden.CHEATS.parents[2]
# A NUL, lone surrogates (as a reply's JSON escapes them), C0 and C1 escapes, DEL.
HOSTILE = "a\x00b \ud800 \udfff \x1b[2J\x1b]0;t\x07 \x9b31m \x7f\ttab\nline"


def _hazards(text: str) -> list[str]:
    """The characters no reader of a report may meet: surrogates and controls but tab and newline."""
    return [
        c
        for c in text
        if 0xD800 <= ord(c) <= 0xDFFF or (ord(c) < 32 and c not in "\t\n") or 127 <= ord(c) < 160
    ]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _json_hazards(stream: str) -> list[str]:
    """The hazards in a JSON document once read: a `\\ud800` escape in it reads as a lone surrogate."""
    return [c for s in _strings(json.loads(stream)) for c in _hazards(s)]


def test_safe_text_keeps_tab_newline_and_writes_out_the_rest():
    text = textsafe.safe_text(HOSTILE)
    assert _hazards(text) == []
    assert text.startswith("a\\x00b \ufffd \ufffd \\x1b[2J\\x1b]0;t\\x07 \\x9b31m \\x7f\ttab\nline")
    text.encode("utf-8")  # valid Unicode: the strict codec takes it
    assert textsafe.safe_text("a,b\r\nc\rd") == "a,b\r\nc\\x0dd"  # a CSV's line ends stay; a lone \r does not
    # Bidirectional controls would reorder what a reader sees: written out too.
    assert (
        textsafe.safe_text("ok \u202egnissap\u202c \u2066x\u2069")
        == "ok \\u202egnissap\\u202c \\u2066x\\u2069"
    )


def test_safe_text_caps_each_field_keeping_both_ends():
    text = textsafe.safe_text("start " + "x" * 10_000 + " the end", 1000)
    assert len(text) <= 1000 and text.startswith("start ") and text.endswith(" the end")
    assert "characters left out" in text


def test_a_hostile_report_is_clean_everywhere_and_never_written_with_a_surrogate_escape():
    report = RunReport(
        verdict="failed",
        message=HOSTILE,
        logs=HOSTILE * 10_000,
        cases=[CaseResult(id=HOSTILE, kind="test", status="failed", message=HOSTILE)],
        flags=[{"kind": "late-write", "message": HOSTILE, "evidence": {HOSTILE: [HOSTILE, float("nan")]}}],
        env={"cpu": HOSTILE, "odd": object()},
        profiles=[{"case": HOSTILE, "text": HOSTILE, "csv": HOSTILE, "ncu": HOSTILE}],
    )
    clean = textsafe.safe_report(report)
    stream = clean.to_json()
    assert _json_hazards(stream) == []
    assert "NaN" not in stream
    assert _hazards(json.dumps(clean.to_dict(), ensure_ascii=False)) == []
    assert len(clean.logs) <= textsafe.CAPS["logs"] and len(clean.cases[0].id) <= textsafe.CAPS["id"]
    assert textsafe.safe_report(clean) == clean  # cleaning twice changes nothing


def test_render_prints_a_hostile_report_as_text():
    report = RunReport(
        verdict="failed",
        message=HOSTILE,
        cases=[CaseResult(id="vectoradd[size=8]", kind="test", status="failed", message=HOSTILE)],
        flags=[{"kind": "floor", "message": HOSTILE, "evidence": None}],
    )
    text = render(report)
    text.encode("utf-8")  # raised UnicodeEncodeError on the old code
    assert _hazards(text) == [] and "a\\x00b" in text


def test_the_schema_names_what_is_wrong():
    good = RunReport(verdict="passed", cases=[CaseResult(id="x", kind="test", status="passed")]).to_dict()
    assert report_problems(good) == []
    bad = {**good, "score_s": "fast", "surprise": 1, "verdict": "won"}
    bad["cases"] = [{**good["cases"][0], "stats": {"n": "many"}}]
    problems = report_problems(bad)
    assert "report.score_s: expected float, got str" in problems
    assert "report.surprise: not a field" in problems
    assert "report.cases[0].stats.n: expected int, got str" in problems
    assert "report.verdict: 'won' is not a verdict" in problems
    with pytest.raises(textsafe.InvalidReport, match="does not match its schema"):
        textsafe.checked(bad)
    stats = Stats(n=3, windows=3, mean=1.0, std=0.0, stderr=0.0, min=1.0, max=1.0)
    assert (
        report_problems(
            RunReport(verdict="passed", cases=[CaseResult("x", "benchmark", "passed", stats=stats)]).to_dict()
        )
        == []
    )


PRINTS_AND_RAISES = (golden.CHEATS / "t09_hostile_text.py").read_text()


def _judged(source: str, mode: str = "test") -> RunReport:
    return execute(
        JobSpec(
            problem="vectoradd",
            source=source,
            mode=mode,
            sandbox="none",
            allow_unisolated=True,
            case_budget_s=0.05,
            call_s=30,
        )
    )


@pytest.mark.judge
def test_what_a_kernel_prints_and_raises_reaches_the_report_as_data():
    report = _judged(golden.wrap("vectoradd", PRINTS_AND_RAISES))
    assert report.verdict == "error", report.message
    assert "custom_kernel raised ValueError: hostile \\x00 \ufffd \ufffd \\x1b[2J" in report.message
    for text in [report.message, report.logs] + [c.message for c in report.cases]:
        assert _hazards(text) == [], text
    assert "raw \\x00" in report.logs and "hostile \\x00" in report.logs
    assert _json_hazards(report.to_json()) == []


LOUD_HONEST = golden.honest("vectoradd") + PRINTS_AND_RAISES.split("def custom_kernel")[0].split('"""', 2)[2]


@pytest.mark.judge
def test_a_passing_kernel_that_prints_hostile_bytes_passes_its_secret_run_with_clean_logs():
    """The re-roll's first half: a passing leaderboard run whose logs once broke the platform's write."""
    report = _judged(LOUD_HONEST, mode="leaderboard")
    assert report.verdict == "passed", report.message
    assert report.score_s and {c.kind for c in report.cases} == {"test", "benchmark", "secret"}
    assert "raw \\x00" in report.logs and _hazards(report.logs) == []
    assert _json_hazards(report.to_json()) == []


@pytest.mark.judge
def test_the_command_line_reports_a_passing_kernel_that_prints_hostile_bytes_as_json(tmp_path):
    """A passing kernel that prints a NUL and lone surrogates: its logs reached the JSON unchanged."""
    done = _cli(tmp_path, LOUD_HONEST, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "passed" and "hostile \\x00" in report["logs"]
    assert _json_hazards(done.stdout) == []


@pytest.mark.judge
def test_the_command_lines_text_report_of_a_kernel_that_raises_hostile_text(tmp_path):
    """Its message held a lone surrogate: render() made text that no UTF-8 terminal could take."""
    done = _cli(tmp_path, golden.wrap("vectoradd", PRINTS_AND_RAISES))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "=== ERROR" in done.stdout and "ValueError: hostile \\x00 \ufffd" in done.stdout
    assert _hazards(done.stdout) == []


def _cli(tmp_path, source: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "kernel.py"
    path.write_text(source, encoding="utf-8")
    argv = [sys.executable, "-m", "runner", "run", "vectoradd", str(path), "--sandbox", "none", *args]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=300)
    # Strict: what the command printed is valid UTF-8.
    return subprocess.CompletedProcess(argv, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_the_judge_signs_a_fault_instead_of_a_report_that_fails_its_schema():
    from runner.judge.__main__ import _signable

    spec = JobSpec(problem="vectoradd", source="")
    good = json.loads(_signable(RunReport(verdict="passed", logs=HOSTILE), spec))
    assert good["verdict"] == "passed" and good["logs"].startswith("a\\x00b")
    bad = json.loads(_signable(RunReport(verdict="won", score_s="fast"), spec))  # type: ignore[arg-type]
    assert bad["verdict"] == "error" and bad["platform_fault"] is True
    assert "report.score_s: expected float, got str" in bad["message"]

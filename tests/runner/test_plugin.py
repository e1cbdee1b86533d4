"""The pytest plugin: a user checks a kernel locally with the harness the server uses."""

from pathlib import Path

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def test_plugin_reports_one_item_per_case(pytester):
    kernel = pytester.makepyfile(k=(ROOT / "problems/vectoradd/templates/pytorch.py").read_text())
    result = pytester.runpytest_subprocess(
        "--problem", "vectoradd", "--submission", str(kernel), "-v", "-p", "no:django"
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*vectoradd[[]size=31[]](test) PASSED*", "*=== PASSED: 4 passed ===*"])


def test_plugin_fails_the_cases_a_wrong_kernel_gets_wrong(pytester):
    kernel = pytester.makepyfile(k=(ROOT / "problems/vectoradd/solutions/wrong/wrong_values.py").read_text())
    result = pytester.runpytest_subprocess(
        "--problem", "vectoradd", "--submission", str(kernel), "-p", "no:django"
    )
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["*differ from the reference*"])


def test_plugin_explains_bad_usage(pytester):
    result = pytester.runpytest_subprocess("--problem", "nosuch", "--submission", "x.py", "-p", "no:django")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*there is no problem called 'nosuch'*"])


def test_plugin_runs_from_the_repository_root_for_a_kernel_anywhere(tmp_path):
    """The README's command, from the checkout, for a file outside it: no project test is collected."""
    import subprocess
    import sys

    kernel = tmp_path / "elsewhere" / "kernel.py"
    kernel.parent.mkdir()
    kernel.write_text((ROOT / "problems/vectoradd/templates/pytorch.py").read_text())
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--problem", "vectoradd", "--submission", str(kernel)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "4 passed" in run.stdout and "isolated by" in run.stdout  # the CLI's default sandbox, not `none`


def test_plugin_collects_the_cases_of_the_device_it_runs(pytester, monkeypatch):
    """Without --device, a machine that sees a GPU gets the GPU's cases, and the run is asked for on the
    GPU too (they once disagreed). No GPU here: torch is told it sees one (a mock, since none exists), and
    the run is not started (--collect-only) but its device is asked for."""
    import torch

    from runner import pytest_plugin

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    kernel = pytester.makepyfile(k=(ROOT / "problems/vectoradd/templates/pytorch.py").read_text())
    result = pytester.runpytest_inprocess(
        "--problem", "vectoradd", "--submission", str(kernel), "--collect-only", "-q", "-p", "no:django"
    )
    from runner.problem import load_problem

    cuda_ids = [c.id for c in load_problem("vectoradd").cases("test", "cuda")]
    cpu_only = {c.id for c in load_problem("vectoradd").cases("test", "cpu")} - set(cuda_ids)
    assert all(any(i in line for line in result.outlines) for i in cuda_ids), result.outlines
    assert not any(i in line for i in cpu_only for line in result.outlines), result.outlines
    assert (
        pytest_plugin._device(pytester.parseconfig("--problem", "vectoradd", "--submission", str(kernel)))
        == "cuda"
    )

"""The pytest plugin: a user checks a kernel locally with the harness the server uses."""

from pathlib import Path

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def test_plugin_reports_one_item_per_case(pytester):
    kernel = pytester.makepyfile(k=(ROOT / "problems/vectoradd/solutions/correct/pytorch_add.py").read_text())
    result = pytester.runpytest_subprocess("--problem", "vectoradd", "--submission", str(kernel), "-v", "-p", "no:django")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*vectoradd[[]size=31[]](test) PASSED*", "*=== PASSED: 4 passed ===*"])


def test_plugin_fails_the_cases_a_wrong_kernel_gets_wrong(pytester):
    kernel = pytester.makepyfile(k=(ROOT / "problems/vectoradd/solutions/wrong/wrong_values.py").read_text())
    result = pytester.runpytest_subprocess("--problem", "vectoradd", "--submission", str(kernel), "-p", "no:django")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["*differ from the reference*"])


def test_plugin_explains_bad_usage(pytester):
    result = pytester.runpytest_subprocess("--problem", "nosuch", "--submission", "x.py", "-p", "no:django")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*there is no problem called 'nosuch'*"])

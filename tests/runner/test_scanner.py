"""The static scan (runner/scanner.py): red flags recorded with their lines, never a verdict."""

from runner.scanner import scan


def test_scanner_records_red_flags_with_lines():
    source = "import ctypes\nimport torch\ntorch.cuda.synchronize = lambda: None\ns = torch.cuda.Stream()\nopen('/proc/self/mem')\n"
    rules = {(f["rule"], f["line"]) for f in scan(source)}
    assert {("ctypes", 1), ("patch", 3), ("stream", 4), ("proc", 5)} <= rules
    assert scan("def custom_kernel(data):\n    return data[0] + data[1]\n") == []
    # prose in docstrings is not evidence
    assert scan('"""Faster than the reference; no threading."""\ndef custom_kernel(d):\n    return d\n') == []

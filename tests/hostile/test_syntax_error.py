"""Attack: a syntax error (the cheapest crash). Expected: rejected, naming the line."""

from tests.hostile.judging import describe, one_line

SOURCE = "import torch\n\ndef custom_kernel(data:\n    return data[2]\n"


def test_a_syntax_error_is_rejected(hostile):
    report = hostile(SOURCE)
    assert report.verdict == "rejected", describe(report)
    assert "syntax error on line 3" in one_line(report), describe(report)

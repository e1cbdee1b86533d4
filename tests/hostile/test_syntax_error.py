"""Attack: a syntax error (the cheapest crash). Expected: rejected, naming the line."""

from tests.hostile.judging import expect

SOURCE = "import torch\n\ndef custom_kernel(data:\n    return data[2]\n"


def test_a_syntax_error_is_rejected(hostile):
    expect(hostile(SOURCE), "rejected", "syntax error on line 3")

"""Attack: a source that is not UTF-8 (confuse the parser, the database, the web page). Expected:
rejected, naming the first byte that is not UTF-8."""

from tests.hostile.judging import expect

RAW = b"def custom_kernel(data):\n    return data[2]  # \xff\xfe latin-1: \xe9\n"
SOURCE = RAW.decode("utf-8", errors="surrogateescape")  # as the command line and the platform read files


def test_a_non_utf8_source_is_rejected(hostile):
    first = RAW.index(b"\xff")
    expect(hostile(SOURCE), "rejected", f"is not UTF-8 text (byte {first} is not valid UTF-8)")

"""Attack: a 10 MB source file (exhaust the parser, the database, the reviewer). Expected: rejected
before anything runs, naming the size limit."""

from tests.hostile.judging import expect

SOURCE = "def custom_kernel(data):\n    return data[2]\n" + ("# padding " + "x" * 1013 + "\n") * (10 * 1024)


def test_a_10_mb_source_is_rejected(hostile):
    assert len(SOURCE.encode()) >= 10 * 2**20
    expect(hostile(SOURCE), "rejected", "the limit is 1024 KiB")

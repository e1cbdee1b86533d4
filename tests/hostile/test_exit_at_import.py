"""Attack: leave at import, with os._exit (no cleanup, no reply) or SystemExit (caught by the harness).
Expected: error, saying how it left."""

from tests.hostile.judging import expect

OS_EXIT = """
import os

os._exit(3)


def custom_kernel(data):
    return data[2]
"""

SYSTEM_EXIT = """
raise SystemExit(4)


def custom_kernel(data):
    return data[2]
"""


def test_os_exit_at_import(hostile):
    expect(hostile(OS_EXIT), "error", "exited with status 3 during the import")


def test_system_exit_at_import(hostile):
    expect(hostile(SYSTEM_EXIT), "error", "the submission called exit(4) while importing")

"""A judge that fails after the contestant started blames the submission when the contestant exhausted what
it needed or made its processes vanish under the judge's reads (runner/judge/blame.py); the platform's
fault, which the platform runs again (a re-roll at the submission's choice), is left for the rest. The
errors here are real ones, made by the operations that raise them."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys

import pytest

from runner.judge.blame import submissions_doing
from runner.limits import limits_for, name_limit


def _raised(action) -> BaseException:
    try:
        action()
    except BaseException as exc:  # noqa: BLE001 - the error itself is what is tested
        return exc
    raise AssertionError("it did not raise")


def _too_many_open_files() -> OSError:
    """EMFILE, for real: the same open with the process's own limit lowered to what it holds."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowest_free = os.dup(0)  # the number the next open would take
    os.close(lowest_free)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, hard))
    try:
        exc = _raised(lambda: open("/proc/self/stat"))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert isinstance(exc, OSError) and exc.errno == errno.EMFILE
    return exc


def _read_of_a_gone_process() -> OSError:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    exc = _raised(lambda: open(f"/proc/{proc.pid}/task/{proc.pid}/children").read())
    assert isinstance(exc, OSError)
    return exc


def test_files_the_contestant_exhausted_are_its_fault_and_the_verdict_names_the_limit():
    message = submissions_doing(_too_many_open_files())
    assert message and "ran out of open files" in message
    named = name_limit(message, limits_for("test"))
    assert "the limit of 1,024 open files per process was reached" in named


def test_a_process_that_vanished_under_a_read_of_proc_is_the_contestants_doing():
    message = submissions_doing(_read_of_a_gone_process())
    assert message and "vanished while the judge read it" in message


def test_a_cause_is_looked_through():
    try:
        try:
            raise _too_many_open_files()
        except OSError as inner:
            raise RuntimeError("freezing the contestant failed") from inner
    except RuntimeError as outer:
        assert submissions_doing(outer)


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("a bug in the judge"),
        FileNotFoundError(errno.ENOENT, "No such file or directory", "/work/main/problems/x/reference.py"),
        PermissionError(errno.EACCES, "Permission denied", "/proc/1/mem"),
    ],
)
def test_anything_else_stays_the_platforms_fault(exc):
    assert submissions_doing(exc) is None

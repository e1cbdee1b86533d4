"""A kernel whose output and exception texts hold NUL bytes, lone surrogates and terminal escapes, judged by
a real worker with the real runner: on PostgreSQL (a private cluster, Redis, `celery worker`, a sweeper) and
on SQLite (`manage.py serve` with the filesystem broker, the `kernelboard` client). Each ends recorded once,
with its verdict, and is never queued again: the old code's write failed, and the sweeper gave it another
(secret) run."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from testbed import ROOT, Serve, free_port, make_submission, vectoradd_source, wait_for

from leaderboard.submissions.models import Attempt, Run, State, Submission

pytestmark = [pytest.mark.slow, pytest.mark.chaos, pytest.mark.judge]

HOSTILE_KERNEL = (
    vectoradd_source()
    + r"""
import os as _os
import sys as _sys

_HOSTILE = "hostile \x00 \ud800 \udcff \x1b[2J end"
_calls = [0]
_honest = custom_kernel


def custom_kernel(data):
    _os.write(1, b"raw \x00 \xed\xa0\x80 \x1b[2J\n")
    _sys.stdout.reconfigure(errors="surrogatepass")
    print(_HOSTILE, flush=True)
    _calls[0] += 1
    if _calls[0] == 2:
        raise ValueError(_HOSTILE)
    return _honest(data)
"""
)


def _hazards(text: str) -> list[str]:
    return [c for c in text if 0xD800 <= ord(c) <= 0xDFFF or (ord(c) < 32 and c not in "\t\n")]


def test_a_hostile_report_on_postgresql_is_recorded_once(chaos_workers, sweepers, chaos_alice):
    chaos_workers.start("hostile", RUNNER_SANDBOX="none")
    sweepers(HEARTBEAT_TIMEOUT_S="5")
    submission = make_submission(chaos_alice.user, source=HOSTILE_KERNEL)

    def row():
        return Submission.objects.get(pk=submission.pk)

    final = wait_for(lambda: row() if row().is_final else None, timeout_s=180, what="a verdict", every_s=0.5)
    time.sleep(8)  # past the sweeper's heartbeat timeout: nothing takes it back
    final = row()
    assert final.state == State.ERROR, final.message
    assert "custom_kernel raised ValueError: hostile \\x00 \ufffd \ufffd \\x1b[2J" in final.message
    assert final.attempts == 1 and Attempt.objects.filter(submission=final).count() == 1
    run = Run.objects.get(submission=final)
    assert "raw \\x00" in run.report["logs"] and _hazards(run.report["logs"]) == []


def test_a_hostile_report_on_sqlite_is_recorded_once(tmp_path):
    platform = Serve(tmp_path / "var", free_port(), env={"RUNNER_SANDBOX": "none"})
    try:
        platform.wait_until_running()
        token = platform.manage("create_api_token", "alice").strip()
        kernel = tmp_path / "hostile.py"
        kernel.write_text(HOSTILE_KERNEL)
        env = {**platform.env, "KERNELBOARD_URL": platform.url, "KERNELBOARD_TOKEN": token}
        argv = [sys.executable, "-m", "leaderboard.client", "submit", "vectoradd", str(kernel), "--wait"]
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=300)
        out = done.stdout.decode("utf-8")  # strict: the client printed valid UTF-8
        assert done.returncode == 1, out + done.stderr.decode(errors="replace") + platform.output
        assert "ERROR: " in out and "hostile \\x00 \ufffd" in out and _hazards(out) == []
        time.sleep(3)  # past a few of the sweeper's rounds
        counted = platform.manage(
            "shell",
            "-c",
            "from leaderboard.submissions.models import Submission, Run, Attempt;"
            "s = Submission.objects.get();"
            "print(s.state, s.attempts, Run.objects.count(), Attempt.objects.count())",
        )
        assert counted.split()[-4:] == ["error", "1", "1", "1"], counted
    finally:
        platform.kill()

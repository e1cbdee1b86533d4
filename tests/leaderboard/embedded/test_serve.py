"""`manage.py serve`: the whole platform on SQLite and the filesystem broker, with no other server.

End to end with the real runner: start it on a fresh var/ folder, make a token, submit with the
`kernelboard` client and --wait, read the pytest-style report, stop it with Ctrl-C (SIGINT), start it
again on the same data, stop it with SIGTERM.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from testbed import CORRECT_VECTORADD, ROOT, Serve, free_port, wait_for

import runner.problem

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)


def processes_of(var: Path) -> list[int]:
    """Processes whose environment names this var/ folder: what serve started, and should have stopped."""
    marker = f"KERNELBOARD_VAR_DIR={var}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.fixture
def serve(tmp_path):
    started: list[Serve] = []

    def start(var: Path | None = None) -> Serve:
        s = Serve(var or tmp_path / "var", free_port())
        started.append(s)
        s.wait_until_running()
        return s

    yield start
    for s in started:
        s.kill()
        for pid in processes_of(s.var):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_serve_judges_a_cli_submission_stops_on_a_signal_and_starts_again(serve):
    platform = serve()
    assert f"Kernelboard is running at {platform.url}/" in platform.output
    assert "problem vectoradd: new" in platform.output  # migrated and synced on first start
    assert (platform.var / "db.sqlite3").is_file() and (platform.var / "broker" / "queue").is_dir()

    token = platform.manage("create_api_token", "alice").strip()
    env = {**platform.env, "KERNELBOARD_URL": platform.url, "KERNELBOARD_TOKEN": token}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "leaderboard.client",
            "submit",
            "vectoradd",
            str(CORRECT_VECTORADD),
            "--device",
            "cpu",
            "--mode",
            "test",
            "--wait",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout + result.stderr + platform.output
    lines = result.stdout.splitlines()
    ids = [c.id for c in runner.problem.load_problem("vectoradd").cases("test", "cpu")]
    assert lines[: len(ids)] == [f"{case_id} PASSED" for case_id in ids]
    assert lines[-1].strip("= ").startswith(f"{len(ids)} passed in ")
    assert re.search(r"^#\d+ (queued|running)", result.stderr, re.M)  # the progress display went to stderr

    assert platform.stop(signal.SIGINT) == 0, platform.output
    assert "Stopped." in platform.output
    wait_for(lambda: not processes_of(platform.var), timeout_s=15, what="every process of serve to end")

    # Started again on the same var/: nothing to migrate or sync, the submission and the token still there.
    again = serve(platform.var)
    assert "problem vectoradd: unchanged" in again.output
    env["KERNELBOARD_URL"] = again.url
    status = subprocess.run(
        [sys.executable, "-m", "leaderboard.client", "status", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert status.returncode == 0 and status.stdout.splitlines()[0] == f"{ids[0]} PASSED", status.stderr
    assert again.stop(signal.SIGTERM) == 0, again.output  # SIGTERM stops it as Ctrl-C does
    wait_for(lambda: not processes_of(again.var), timeout_s=15, what="every process of serve to end")

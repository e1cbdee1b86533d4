"""The hostile suite: one file per attack on the sandbox (threat 10), each named for it and holding its
hostile submission as a string. Every attack runs through the `bwrap` backend and `docker` (where no
Docker engine or runner image is here, skipped with the reason; under CI, which must run them, failed).

After every attack, checked by the fixture `hostile` that runs it:
- no process runs as any sandbox uid, no uid is still leased, no job directory is left in the temp folder;
- the platform's files (a planted database, settings and secret key, world-readable so that only the
  sandbox can keep them from the contestant) are unchanged;
- a correct submission then runs normally through the same backend.

Budgets are short (call_s, case_budget_s) so that the suite takes a few minutes on 2 cores.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from runner.sandbox import uids
from tests.containers import engine
from tests.hostile.judging import CORRECT, SECRET, SECRET_ENV, Hostile, describe


@pytest.fixture(scope="session", params=["bwrap", "docker"])
def backend(request) -> str:
    if request.param == "bwrap" and not (shutil.which("bwrap") or shutil.which("unshare")):
        pytest.skip("neither bubblewrap nor unshare is installed")
    if request.param == "docker":
        engine.require()  # skips with the reason where no engine or image is here; under CI it fails
    return request.param


def _world_readable_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="session", autouse=True)
def own_sandbox_space():
    """Other test runs on this machine run jobs at the same time, with the default sandbox uids and in the
    same temp folder: this session leases uids of its own (the judge inherits the setting) and puts its job
    directories in a folder of its own, so that "nothing of the job remains" is checked exactly."""
    saved = {k: os.environ.get(k) for k in ("RUNNER_SANDBOX_UID_BASE", "RUNNER_SANDBOX_UID_COUNT")}
    os.environ["RUNNER_SANDBOX_UID_BASE"] = str(2_000_000 + (os.getpid() % 30_000) * 16)
    os.environ["RUNNER_SANDBOX_UID_COUNT"] = "16"
    jobs = _world_readable_dir("kb-hostile-jobs-")
    saved_tempdir, tempfile.tempdir = tempfile.tempdir, str(jobs)
    yield jobs
    tempfile.tempdir = saved_tempdir
    shutil.rmtree(jobs, ignore_errors=True)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def platform() -> dict[str, Path]:
    """A fake platform beside the real one: database, settings, secret key, and the secret in the parent's
    environment (which the judge inherits). All readable by anyone: only the sandbox stands in the way."""
    root = _world_readable_dir("kb-platform-")
    files = {
        "db": root / "db.sqlite3",
        "settings": root / "settings.py",
        "secret_key": root / "secret_key",
    }
    files["db"].write_bytes(b"SQLite format 3\x00" + SECRET.encode() * 64)
    files["settings"].write_text(
        f"SECRET_KEY = {SECRET!r}\nDATABASES = {{'default': {{'NAME': '{files['db']}'}}}}\n"
    )
    files["secret_key"].write_text(SECRET)
    for f in files.values():
        f.chmod(0o644)
    os.environ[SECRET_ENV] = SECRET
    yield files
    os.environ.pop(SECRET_ENV, None)
    shutil.rmtree(root, ignore_errors=True)


def _digest(files: dict[str, Path]) -> dict[str, str]:
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}


def _job_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).iterdir()}


@pytest.fixture
def hostile(backend, platform):
    """Runs hostile submissions through `backend`; afterwards checks that nothing of them remains, that the
    platform's files are unchanged, and that a correct submission runs normally."""
    before = _digest(platform)
    runner = Hostile(backend)
    yield runner
    assert uids.leftovers() == {}, "a process of a sandbox uid outlived its job"
    assert uids.leased() == [], "a sandbox uid is still leased after its job"
    assert _digest(platform) == before, "the platform's files changed"
    assert _job_dirs() == set(), "a job directory was left behind"
    if runner.ran:
        report = runner(CORRECT)
        assert report.verdict == "passed", (
            f"a correct submission failed right after the attack: {describe(report)}"
        )

"""Shared test set-up. The runner's tests run on the CPU; tests marked `gpu` need an NVIDIA GPU and are
run by scripts/gpu_check.sh on a GPU machine.

Tests that start a judge process (directly, through the command line, a worker or the whole platform) are
marked `judge`: whole folders of them here, tests that start Celery workers by their fixture, the rest in
their module (`pytestmark`) or one by one. `make check` runs the others (`-m "not judge"`), and there a test
that starts a judge in this process anyway fails and says to mark it. Select the judge tests of one problem
or one sandbox backend with `-k`: their ids name both (`-m judge -k "softmax"`, `-k "bwrap"`).
"""

from pathlib import Path

import pytest
import torch

TESTS = Path(__file__).resolve().parent
JUDGE_FOLDERS = (
    "hostile/",
    "containers/",
    "leaderboard/chaos/",
    "leaderboard/reliability/",
    "leaderboard/docker/",
)
JUDGE_FIXTURES = {"workers", "platform"}  # real Celery workers (and the browser test's whole platform)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """Test processes side by side (pytest -n) each point Django at their own services
    (tests/leaderboard/testbed.py). Where the starting process read the platform's conftest first (a path
    under tests/leaderboard given), it left DJANGO_SETTINGS_MODULE set; a test process that inherited it
    would set Django up before its own conftest could, on the shared broker, and skip the broker's tests."""
    import os

    os.environ.pop("DJANGO_SETTINGS_MODULE", None)


def pytest_collection_modifyitems(config, items):
    skip_gpu = (
        None
        if torch.cuda.is_available()
        else pytest.mark.skip(reason="needs an NVIDIA GPU (run scripts/gpu_check.sh on a GPU machine)")
    )
    for item in items:
        path = Path(str(item.fspath)).resolve()
        rel = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else ""
        if rel.startswith(JUDGE_FOLDERS) or JUDGE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.judge)
        if "gpu" in item.keywords:
            item.add_marker(pytest.mark.judge)
            if skip_gpu:
                item.add_marker(skip_gpu)


@pytest.fixture(autouse=True)
def _judges_only_where_marked(request, monkeypatch):
    """In the fast tier (`-m "not judge"`), starting a judge in this process is a test that lacks its mark."""
    if "not judge" not in (request.config.getoption("markexpr") or "") or "judge" in request.node.keywords:
        return

    def refuse(*args, **kwargs):
        raise AssertionError(f"{request.node.nodeid} starts a judge: mark it `judge` (tests/conftest.py)")

    monkeypatch.setattr("runner.caller._run_judge", refuse)


@pytest.fixture
def job_cgroups():
    """The judge charges CPU time from the job's cgroup (runner/sandbox/cgroup.py) under bubblewrap, which needs a
    writable cgroup v2 hierarchy: root on most hosts. Skips, naming what is missing, where there is none;
    fails under CI."""
    import os
    import shutil

    from runner.sandbox import cgroup

    made = cgroup.create()
    why = ""
    if made is None:
        why = f"no writable cgroup v2 hierarchy here ({cgroup.parent()}; the worker needs root for one)"
    else:
        cgroup.remove(made)
        if not shutil.which("bwrap"):
            why = "bubblewrap is not installed (apt-get install bubblewrap): only its jobs get a cgroup"
    if why and os.environ.get("CI"):
        pytest.fail(why)
    if why:
        pytest.skip(why)

"""The whole stack in containers (docker/compose.local.yaml), end to end: scripts/docker_stack.sh builds the
images here, brings PostgreSQL, Redis, the web and a worker up, submits a correct vectoradd through the API,
waits for its verdict, finds it in the rankings and takes everything down. 3 to 8 minutes."""

import subprocess

import pytest

from runner.sandbox import RUNNER_ROOT
from tests.containers import engine


@pytest.mark.slow
def test_the_stack_comes_up_judges_a_submission_ranks_it_and_goes_down():
    engine.require()
    from runner.sandbox.docker import engine as client_of

    client = client_of()
    run = subprocess.run(
        ["bash", "scripts/docker_stack.sh"], cwd=RUNNER_ROOT, capture_output=True, text=True, timeout=1800
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "in the rankings: rank 1 alice" in run.stdout, run.stdout[-4000:]
    left = [c.name for c in client.containers.list(all=True) if c.name.startswith("kernelboard-local")]
    assert (
        left == [] and [v.name for v in client.volumes.list() if v.name.startswith("kernelboard-local")] == []
    )

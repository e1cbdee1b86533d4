"""The whole stack in containers (docker/compose.local.yaml), end to end: scripts/docker_stack.sh builds the
images here, brings PostgreSQL, Redis, the web and a worker up, submits a correct vectoradd through the API,
waits for its verdict, finds it in the rankings and takes everything down. 3 to 8 minutes. The CPU worker
judges as the tested default does: the job's cgroup, a leased uid, the fork server. And the file tested
here gives the worker the privileges of the file shipped (docker/compose.yaml)."""

import subprocess

import pytest
import yaml

from runner.sandbox import RUNNER_ROOT
from tests.containers import engine


@pytest.mark.slow
def test_the_stack_comes_up_judges_a_submission_ranks_it_and_goes_down():
    engine.require()
    from runner.sandbox.docker import engine as client_of

    client = client_of()
    try:
        run = subprocess.run(
            ["bash", "scripts/docker_stack.sh"], cwd=RUNNER_ROOT, capture_output=True, text=True, timeout=1800
        )
    except subprocess.TimeoutExpired as exc:  # say where it stood, not only that it took too long
        pytest.fail(f"docker_stack.sh ran past 30 minutes; it had printed:\n{exc.stdout}\n{exc.stderr}")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "in the rankings: rank 1 alice" in run.stdout, run.stdout[-4000:]
    # How the compose worker judged it: CPU time from the job's cgroup, a uid leased for the job, judges
    # forked from the fork server (which stays up in the worker after its first job).
    assert "judged with cpu_time_from=cgroup" in run.stdout, run.stdout[-4000:]
    assert "a dedicated uid (1610000-1610063) leased for the job" in run.stdout, run.stdout[-4000:]
    assert "a fork server runs in the worker: yes" in run.stdout, run.stdout[-4000:]
    left = [c.name for c in client.containers.list(all=True) if c.name.startswith("kernelboard-local")]
    assert (
        left == [] and [v.name for v in client.volumes.list() if v.name.startswith("kernelboard-local")] == []
    )


PRIVILEGES = ("user", "cap_drop", "cap_add", "security_opt", "privileged", "devices", "volumes")


def _worker(name: str) -> dict:
    return yaml.safe_load((RUNNER_ROOT / "docker" / name).read_text())["services"]["worker-cpu"]


def test_the_tested_worker_has_the_privileges_of_the_shipped_one():
    shipped, tested = _worker("compose.yaml"), _worker("compose.local.yaml")
    assert {k: shipped.get(k) for k in PRIVILEGES} == {k: tested.get(k) for k in PRIVILEGES}
    assert shipped["cgroup"] == tested["x-cgroup"] == "private"
    assert "ALL" in shipped["cap_drop"] and not shipped.get("privileged")
    assert shipped["environment"]["RUNNER_SANDBOX"] == "bwrap"
    assert "RUNNER_CPU_ACCOUNTING" not in shipped["environment"]  # the /proc path is never shipped


def test_the_worker_image_leases_uids_apart_from_the_hosts():
    """A lease kills whatever runs as its uid, and the host sees every container's processes: a job judged on
    the host with the same range killed the compose worker's contestant mid-run. The image's range must not
    meet the runner's default one."""
    import re

    from runner import settings

    dockerfile = (RUNNER_ROOT / "docker" / "web.Dockerfile").read_text()
    image_base = int(re.search(r"^ENV RUNNER_SANDBOX_UID_BASE=(\d+)$", dockerfile, re.M)[1])
    count = int(settings.SETTINGS["RUNNER_SANDBOX_UID_COUNT"].default)
    host_base = int(settings.SETTINGS["RUNNER_SANDBOX_UID_BASE"].default)
    image, host = range(image_base, image_base + count), range(host_base, host_base + count)
    assert not set(image) & set(host), (image, host)

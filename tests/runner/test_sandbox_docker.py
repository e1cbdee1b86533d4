"""The docker backend. This machine has no Docker engine, so the container it would start is checked as
configuration (`container_config`, the keyword arguments handed to the docker SDK); the integration test at
the end runs a real job where an engine and the runner image exist, and is skipped with the reason otherwise."""

from pathlib import Path

import pytest

from runner import JobSpec, execute
from runner.limits import limits_for
from runner.sandbox import RUNNER_ROOT, get_sandbox
from runner.sandbox.docker import JOB_DIR, DockerSandbox, _sdk_config, container_config, engine, image_name

JOB = Path("/tmp/kb-job-abc123")


def config(device="cuda", **kw):
    return container_config(job_dir=JOB, job_name="kernelboard-kb-job-abc123", limits=limits_for("leaderboard"),
                            device=device, threads=1, gpu="3", **kw)


def test_the_container_has_no_network_a_read_only_root_and_no_capabilities():
    c = config()
    assert c["network_mode"] == "none" and c["network_disabled"] is True
    assert c["read_only"] is True
    assert c["cap_drop"] == ["ALL"] and "cap_add" not in c
    assert c["security_opt"] == ["no-new-privileges:true"]
    assert "privileged" not in c and c.get("pid_mode") is None and c["ipc_mode"] == "private"
    assert c.get("user") in (None, "") or not c["user"].startswith("0")  # the image's non-root user


def test_the_container_is_limited_in_processes_memory_without_swap_and_scratch():
    lim = limits_for("leaderboard")
    c = config()
    assert c["pids_limit"] == lim.processes
    assert c["mem_limit"] == lim.memory_bytes and c["memswap_limit"] == lim.memory_bytes
    scratch = c["tmpfs"][f"{JOB_DIR}/scratch"]
    assert f"size={lim.scratch_bytes}" in scratch and "nosuid" in scratch
    assert all("size=" in opts for opts in c["tmpfs"].values())  # every writable place is capped
    assert {"Name": "core", "Soft": 0, "Hard": 0} in c["ulimits"]


def test_exactly_one_gpu_by_device_id_and_none_for_cpu_jobs():
    (request,) = config()["device_requests"]
    assert request["DeviceIDs"] == ["3"] and request["Capabilities"] == [["gpu"]]
    assert "device_requests" not in config(device="cpu")


def test_only_the_job_directory_is_mounted_read_only_and_never_the_docker_socket():
    c = config()
    assert c["volumes"] == {str(JOB): {"bind": JOB_DIR, "mode": "ro"}}
    assert not any("docker.sock" in k or "docker.sock" in v["bind"] for k, v in c["volumes"].items())
    assert "mounts" not in c and "devices" not in c


def test_the_judge_runs_in_the_container_and_the_seed_goes_through_stdin_only():
    c = config()
    assert c["command"] == ["python", "-m", "runner.judge"]
    assert c["stdin_open"] is True and c["stdin_once"] is True and c["tty"] is False
    assert not any("seed" in k.lower() for k in c["environment"])
    assert all("seed" not in part for part in c["command"])
    assert c["labels"] == {"kernelboard.job": "kernelboard-kb-job-abc123"}


def test_the_sdk_gets_its_own_types():
    pytest.importorskip("docker")
    import docker.types

    out = _sdk_config(config())
    assert isinstance(out["ulimits"][0], docker.types.Ulimit)
    assert isinstance(out["device_requests"][0], docker.types.DeviceRequest)
    assert out["device_requests"][0]["DeviceIDs"] == ["3"]


def test_inside_the_container_the_judge_starts_the_contestant_with_the_plain_launcher():
    sandbox = get_sandbox("docker")
    assert isinstance(sandbox, DockerSandbox)
    assert type(sandbox).start is type(get_sandbox("none")).start
    assert "docker" in sandbox.note and "non-dumpable" in sandbox.note


def test_the_dockerfile_builds_the_runner_image_as_described():
    text = (RUNNER_ROOT / "docker" / "runner.Dockerfile").read_text()
    assert "nvidia/cuda" in text and "torch|triton|numpy" in text and "triton.__version__ == '3.7.1'" in text
    assert "\nUSER runner" in text and "COPY runner " in text
    assert "COPY leaderboard" not in text and "COPY var" not in text  # no platform code, no database


def _engine_missing() -> str | None:
    try:
        client = engine()
    except RuntimeError as exc:
        return str(exc)
    try:
        client.images.get(image_name())
    except Exception:
        return f"the runner image {image_name()} is not built"
    return None


def test_without_an_engine_a_docker_job_is_an_error_in_the_operators_words():
    if _engine_missing() is None:
        pytest.skip("a Docker engine runs here")
    source = (RUNNER_ROOT / "problems/vectoradd/solutions/correct/pytorch_add.py").read_text()
    report = execute(JobSpec(problem="vectoradd", source=source, sandbox="docker"))
    assert report.verdict == "error"
    assert "docker" in report.message.lower() and "\n" not in report.message


def test_a_real_job_in_a_container():
    missing = _engine_missing()
    if missing:
        pytest.skip(f"needs a Docker engine and the runner image: {missing}")
    source = (RUNNER_ROOT / "problems/vectoradd/solutions/correct/pytorch_add.py").read_text()
    report = execute(JobSpec(problem="vectoradd", source=source, sandbox="docker", call_s=30))
    assert report.verdict == "passed", report.message + report.logs[-2000:]
    assert report.isolation.startswith("isolated by docker")
    client = engine()
    assert client.containers.list(all=True, filters={"label": "kernelboard.job"}) == []

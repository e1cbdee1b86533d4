"""The docker backend's configuration, checked without an engine: `container_config` goes through the docker
SDK's own argument builder (what `containers.create` does before it sends anything), and the tests read the
request the engine would get. The tests at the end run real jobs on the engine (tests/containers/engine.py says
when they skip); tests/containers/ has more."""

from pathlib import Path

import pytest
from docker.models.containers import _create_container_args

import docker
from runner import JobSpec, execute
from runner.limits import limits_for
from runner.sandbox import RUNNER_ROOT, get_sandbox
from runner.sandbox.docker import (
    CAPABILITIES,
    IMAGE_UID,
    JOB_DIR,
    DockerSandbox,
    code_hash,
    container_config,
    describe,
)
from tests.containers import engine

JOB = Path("/tmp/kb-job-abc123")
API_VERSIONS = ["1.41", docker.constants.DEFAULT_DOCKER_API_VERSION]  # Debian's 20.10 engine; the SDK's own


def config(device="cuda", **kw):
    kw = {
        "job_dir": JOB,
        "job_name": "kernelboard-kb-job-abc123",
        "limits": limits_for("leaderboard"),
        "device": device,
        "threads": 1,
        "gpu": "3",
        "uid": 61003,
        "host_cpus": 8,
        "image": "kernelboard-runner:latest",
        **kw,
    }
    return container_config(**kw)


def engine_request(cfg: dict, version: str = "1.41") -> dict:
    """The body of POST /containers/create that the SDK's `containers.create(**cfg)` would send, built by
    the SDK's own code (it raises where the SDK would); only the request itself is not sent."""
    kwargs = _create_container_args({**cfg, "version": version})
    api = docker.APIClient(version=version)  # an explicit version: it contacts no engine
    sent = {}

    def capture(config, name=None, platform=None):
        sent.update(config, Name=name)
        return {"Id": "0"}

    api.create_container_from_config = capture
    api.create_container(**kwargs)
    return sent


@pytest.mark.parametrize("version", API_VERSIONS)
@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_the_sdk_accepts_the_configuration(version, device):
    body = engine_request(config(device=device), version)
    assert body["Image"] == "kernelboard-runner:latest" and body["Cmd"] == ["python", "-m", "runner.judge"]
    assert body["HostConfig"]["NetworkMode"] == "none"


def test_stdin_is_attached_and_closes_after_the_request():
    body = engine_request(config())
    # Not detached: the engine closes the judge's stdin once the attached request has been sent.
    assert body["OpenStdin"] is True and body["StdinOnce"] is True and body["AttachStdin"] is True
    assert body["AttachStdout"] is True and body["Tty"] is False
    assert "detach" not in config()
    assert body["HostConfig"]["LogConfig"]["Type"] == "none"  # the report never lands in a log file


def test_no_network_a_read_only_root_and_only_the_judges_capabilities():
    body = engine_request(config())
    host = body["HostConfig"]
    assert host["NetworkMode"] == "none" and body["NetworkDisabled"] is True
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and host["CapAdd"] == CAPABILITIES == ["SETUID", "SETGID", "KILL"]
    assert host["SecurityOpt"] == ["no-new-privileges:true"]
    assert not host.get("Privileged") and not host.get("PidMode") and host["IpcMode"] == "private"
    assert body["User"] == "0:0" and host["Init"] is True


def test_every_writable_place_is_capped_and_the_scratch_is_the_contestants_and_executable():
    lim = limits_for("leaderboard")
    host = engine_request(config())["HostConfig"]
    scratch = host["Tmpfs"][f"{JOB_DIR}/scratch"].split(",")
    assert f"size={lim.scratch_bytes}" in scratch and "exec" in scratch and "noexec" not in scratch
    assert (
        "uid=61003" in scratch and "gid=61003" in scratch and "mode=0700" in scratch and "nosuid" in scratch
    )
    judge_tmp = host["Tmpfs"]["/tmp"].split(",")
    assert (
        "exec" in judge_tmp and "mode=0700" in judge_tmp and not any(o.startswith("uid=") for o in judge_tmp)
    )
    assert all("size=" in opts for opts in host["Tmpfs"].values())
    assert host["ShmSize"] == lim.shm_bytes


def test_processes_memory_without_swap_and_cpus_never_above_the_engines():
    lim = limits_for("leaderboard")
    host = engine_request(config())["HostConfig"]
    assert host["PidsLimit"] > lim.processes  # the contestant's own are limited per uid (RLIMIT_NPROC)
    assert host["Memory"] == lim.job_memory_bytes and host["MemorySwap"] == lim.job_memory_bytes
    assert {"Name": "core", "Soft": 0, "Hard": 0} in host["Ulimits"]
    assert host["NanoCpus"] == 2 * 10**9  # one thread and the judge
    assert engine_request(config(threads=2, host_cpus=2))["HostConfig"]["NanoCpus"] == 2 * 10**9
    assert engine_request(config(threads=7, host_cpus=2))["HostConfig"]["NanoCpus"] == 2 * 10**9


def test_exactly_one_gpu_by_device_id_and_none_for_cpu_jobs():
    (request,) = engine_request(config())["HostConfig"]["DeviceRequests"]
    assert request["DeviceIDs"] == ["3"] and request["Capabilities"] == [["gpu"]]
    assert "DeviceRequests" not in engine_request(config(device="cpu"))["HostConfig"]


def test_the_job_directory_read_only_the_leased_uids_account_and_never_the_docker_socket():
    binds = engine_request(config())["HostConfig"]["Binds"]
    assert binds == [
        f"{JOB}:{JOB_DIR}:ro",
        f"{JOB}/.sandbox-etc/passwd:/etc/passwd:ro",
        f"{JOB}/.sandbox-etc/group:/etc/group:ro",
    ]
    assert engine_request(config(uid=IMAGE_UID))["HostConfig"]["Binds"] == [f"{JOB}:{JOB_DIR}:ro"]
    assert not any("docker.sock" in b for b in binds)
    assert "Mounts" not in engine_request(config())["HostConfig"]


def test_the_secrets_go_through_stdin_only():
    body = engine_request(config())
    assert not any("seed" in e.lower() or "key" in e.lower() for e in body["Env"])
    assert body["Labels"] == {"kernelboard.job": "kernelboard-kb-job-abc123"}


def test_the_isolation_note_is_read_off_the_container_it_describes():
    note = describe(config(), uid=61003, device="cuda", digest="sha256:0123456789abcdef0123")
    assert note.startswith(
        "isolated by docker: judge and contestant in one container of kernelboard-runner:latest"
    )
    assert "uid 61003" in note and "one GPU (device 3)" in note and "256 MiB scratch" in note
    assert "64 MiB /dev/shm" in note and "memory 16 GiB" in note and "2 CPUs" in note
    cpu = describe(config(device="cpu", image="other:tag", uid=IMAGE_UID), uid=IMAGE_UID, device="cpu")
    assert "other:tag" in cpu and "no GPU" in cpu and "GPU (" not in cpu and "the image's uid 10002" in cpu


def test_the_code_hash_covers_the_dockerfile_the_lock_the_runner_and_the_problems(tmp_path):
    for name in ("docker", "runner", "problems/p"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "docker/runner.Dockerfile").write_text("FROM x\n")
    (tmp_path / "requirements.lock").write_text("torch==2.13.0\n")
    (tmp_path / "runner/a.py").write_text("a = 1\n")
    (tmp_path / "problems/p/task.py").write_text("t = 1\n")
    first = code_hash(tmp_path)
    (tmp_path / "runner/__pycache__").mkdir()
    (tmp_path / "runner/__pycache__/a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "docs.md").write_text("not in the image\n")
    assert code_hash(tmp_path) == first
    for path in ("docker/runner.Dockerfile", "requirements.lock", "runner/a.py", "problems/p/task.py"):
        saved = (tmp_path / path).read_text()
        (tmp_path / path).write_text(saved + "#\n")
        assert code_hash(tmp_path) != first, path
        (tmp_path / path).write_text(saved)
    assert code_hash(tmp_path) == first


@pytest.mark.judge
def test_inside_the_container_the_judge_starts_the_contestant_as_another_uid():
    sandbox = get_sandbox("docker")
    assert isinstance(sandbox, DockerSandbox)
    assert type(sandbox).start is not type(get_sandbox("none")).start
    assert "docker" in sandbox.note


def test_the_dockerfile_builds_the_cpu_image_on_a_local_base_and_the_cuda_image_unchanged():
    text = (RUNNER_ROOT / "docker" / "runner.Dockerfile").read_text()
    assert "ARG BASE_IMAGE=nvidia/cuda:" in text and "FROM ${BASE_IMAGE}" in text
    assert "torch|triton|numpy" in text and "triton.__version__ == '3.7.1'" in text
    assert "--uid 10002 --gid 10002" in text and "--gid 10002 contestant" in text  # one uid, one gid
    assert "\nUSER " not in text  # root, with the capabilities the container gives it
    assert "COPY runner " in text and "COPY leaderboard" not in text and "COPY var" not in text


# ---- on the engine ------------------------------------------------------------------------------------


@pytest.mark.judge
def test_a_real_job_in_a_container_leaves_nothing_behind(monkeypatch):
    engine.require()
    from runner.sandbox.docker import engine as client_of

    client = client_of()
    jobs = engine.Jobs(client, monkeypatch)  # this job's only: others may run on the same engine meanwhile
    source = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
    report = execute(JobSpec(problem="vectoradd", source=source, sandbox="docker", device="cpu", call_s=30))
    assert report.verdict == "passed", report.message + report.logs[-2000:]
    assert report.isolation.startswith("isolated by docker") and "no GPU" in report.isolation
    assert report.env["runner_image"].startswith("sha256:")
    assert len(jobs.names) == 1 and len(jobs.containers()) == 1  # its container was seen: checked below
    # no container, volume or image layer of the job
    assert jobs.leftovers() == {"containers": set(), "volumes": set(), "images": set()}


def test_without_an_engine_a_docker_job_is_a_platform_fault_in_the_operators_words(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    source = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()
    report = execute(JobSpec(problem="vectoradd", source=source, sandbox="docker", device="cpu"))
    assert report.verdict == "error" and report.platform_fault
    assert "Docker engine" in report.message and "\n" not in report.message
    assert "Traceback" not in report.message + report.logs


def test_folders_of_imported_problems_are_lent_read_only(tmp_path, monkeypatch):
    monkeypatch.delenv("KERNELBOARD_PROBLEM_DIRS", raising=False)
    assert not any(e.startswith("KERNELBOARD_PROBLEM_DIRS=") for e in engine_request(config())["Env"])
    monkeypatch.setenv("KERNELBOARD_PROBLEM_DIRS", str(tmp_path))
    body = engine_request(config())
    assert f"{tmp_path}:{tmp_path}:ro" in body["HostConfig"]["Binds"]
    assert f"KERNELBOARD_PROBLEM_DIRS={tmp_path}" in body["Env"]

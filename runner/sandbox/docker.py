"""The docker backend, for GPU hosts: the judge and the contestant in one container of the runner image.

CUDA IPC, through which the judge lends the contestant its input and output buffers, needs both processes
in the same container, so the container runs `python -m runner.judge` (the request, with the secret seed,
on its stdin through the engine's attach stream: never argv, env or a file), and the judge starts the
contestant inside it with the plain launcher (rlimits, its own process group, death with the judge). The
judge makes itself non-dumpable, so the contestant, which runs as the same user, can neither ptrace it nor
read its memory, environment or file descriptors.

The container (see `container_config`, a pure function the tests check): the runner image
(docker/runner.Dockerfile) as its non-root user, no network, a read-only root, the job directory mounted
read-only with its scratch folder a size-capped tmpfs, all capabilities dropped, no-new-privileges, a pids
limit, memory with swap equal to it (no swap), exactly one GPU by device id, never the Docker socket. The
container is removed after the job, whatever happened; cleanup() also removes any container labelled with
the job.

Settings (environment): RUNNER_IMAGE (default kernelboard-runner:latest), RUNNER_GPU (the device id the
worker owns; default: the first of CUDA_VISIBLE_DEVICES, else 0), DOCKER_HOST as the docker SDK reads it.
The docker SDK is needed only where containers are started, not inside the image.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from runner.limits import Limits, limits_for
from runner.sandbox import JudgeRun, Sandbox
from runner.spec import JobSpec

JOB_DIR = "/job"  # where the job directory appears inside the container
IMAGE_ROOT = "/opt/kernelboard"  # where the image holds the runner and the problems
LABEL = "kernelboard.job"
JUDGE_TMP_BYTES = 256 << 20  # the judge's own scratch (/tmp): caches of torch and triton


def image_name() -> str:
    return os.environ.get("RUNNER_IMAGE") or "kernelboard-runner:latest"


def gpu_id() -> str:
    if os.environ.get("RUNNER_GPU"):
        return os.environ["RUNNER_GPU"]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return visible or "0"


def container_config(*, job_dir: Path, job_name: str, limits: Limits, device: str, threads: int,
                     image: str | None = None, gpu: str | None = None, image_digest: str = "") -> dict:
    """The keyword arguments of `docker.containers.create` for one job. Pure: tests assert on it."""
    config = {
        "image": image or image_name(),
        "command": ["python", "-m", "runner.judge"],
        "name": job_name,
        "labels": {LABEL: job_name},
        "working_dir": IMAGE_ROOT,
        "stdin_open": True,  # the request (and the secret seed) arrives on stdin ...
        "stdin_once": True,  # ... which closes once it is sent
        "tty": False,
        "detach": True,
        "network_mode": "none",
        "network_disabled": True,
        "read_only": True,
        "volumes": {str(job_dir): {"bind": JOB_DIR, "mode": "ro"}},
        "tmpfs": {
            f"{JOB_DIR}/scratch": f"rw,nosuid,nodev,size={limits.scratch_bytes},mode=1777",
            "/tmp": f"rw,nosuid,nodev,size={JUDGE_TMP_BYTES},mode=1777",
        },
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges:true"],
        "pids_limit": limits.processes,
        "mem_limit": limits.memory_bytes,
        "memswap_limit": limits.memory_bytes,  # equal: no swap on top of the memory limit
        "nano_cpus": int((threads + 1) * 1e9),  # the contestant's threads and the judge
        "ipc_mode": "private",
        "init": True,  # a reaper as pid 1: signals and orphans behave as on a host
        "environment": {
            "HOME": "/tmp",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "TRITON_CACHE_DIR": "/tmp/.triton",
            "RUNNER_IMAGE_DIGEST": image_digest or (image or image_name()),  # recorded in the report's env
        },
        "ulimits": [{"Name": "core", "Soft": 0, "Hard": 0}],
    }
    if device == "cuda":
        config["device_requests"] = [{"Driver": "nvidia", "DeviceIDs": [gpu or gpu_id()], "Capabilities": [["gpu"]]}]
    return config


def _sdk_config(config: dict) -> dict:
    """`container_config` with the SDK's own types where it wants them."""
    import docker.types

    out = dict(config)
    out["ulimits"] = [docker.types.Ulimit(name=u["Name"], soft=u["Soft"], hard=u["Hard"]) for u in config["ulimits"]]
    if "device_requests" in config:
        out["device_requests"] = [
            docker.types.DeviceRequest(driver=d["Driver"], device_ids=d["DeviceIDs"], capabilities=d["Capabilities"])
            for d in config["device_requests"]
        ]
    return out


def engine():
    """A client of a running engine, or RuntimeError saying why there is none."""
    try:
        import docker
    except ImportError:
        raise RuntimeError("the docker sandbox needs the docker SDK (pip install docker)") from None
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:
        raise RuntimeError(f"the docker sandbox needs a running Docker engine: {exc}") from None
    return client


class DockerSandbox(Sandbox):
    name = "docker"
    isolated = True

    def __init__(self):
        self._client = None
        self._digest = ""

    @property
    def note(self) -> str:
        return (
            f"isolated by docker: judge and contestant in one container of {image_name()} as its non-root "
            "user, no network, a read-only root, a size-capped tmpfs scratch, all capabilities dropped, "
            "no-new-privileges, pids and memory limits, one GPU; the judge is non-dumpable"
        )

    # ---- on the host, in execute() --------------------------------------------------------------------

    def prepare(self, job_dir: Path) -> None:
        self._client = engine()
        try:
            image = self._client.images.get(image_name())
            self._digest = (image.attrs.get("RepoDigests") or [image.id])[0]
        except Exception as exc:
            raise RuntimeError(
                f"the runner image {image_name()} is not on this host ({exc}); build it with "
                f"docker build -f docker/runner.Dockerfile -t {image_name()} ."
            ) from None
        (job_dir / "scratch").chmod(0o777)  # the mount point of the container's tmpfs

    def run_judge(self, request: dict, job_dir: Path, env: dict[str, str], timeout_s: float) -> JudgeRun:
        spec = JobSpec(**{**request["spec"], "secret_seed": None})
        limits = limits_for(spec.mode, spec.case_budget_s, spec.call_s)
        config = container_config(
            job_dir=job_dir, job_name=_job_name(job_dir), limits=limits, device=spec.device, threads=spec.threads,
            image_digest=self._digest,
        )
        if os.environ.get("RUNNER_LIMITS"):  # the operator's limits hold inside the container too
            config["environment"]["RUNNER_LIMITS"] = os.environ["RUNNER_LIMITS"]
        client = self._client or engine()
        container = client.containers.create(**_sdk_config(config))
        try:
            stream = container.attach_socket(params={"stdin": 1, "stream": 1})
            raw = getattr(stream, "_sock", stream)
            container.start()
            raw.sendall(json.dumps({**request, "job_dir": JOB_DIR}).encode())
            try:
                raw.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            stream.close()
            try:
                container.wait(timeout=timeout_s)
                timed_out = False
            except Exception:  # requests' ReadTimeout, or the engine went away: the job's wall clock ran out
                timed_out = True
                container.kill()
            out = container.logs(stdout=True, stderr=False)
            err = container.logs(stdout=False, stderr=True, tail=50)
            return JudgeRun(out, err, timed_out=timed_out)  # TODO(docker helper): returncode
        finally:
            container.remove(force=True)

    def cleanup(self, job_dir: Path) -> None:
        if self._client is None:
            return
        for container in self._client.containers.list(all=True, filters={"label": f"{LABEL}={_job_name(job_dir)}"}):
            container.remove(force=True)

    # start() is the plain launcher: inside the container, the judge starts the contestant beside itself.


def _job_name(job_dir: Path) -> str:
    return f"kernelboard-{job_dir.name}"

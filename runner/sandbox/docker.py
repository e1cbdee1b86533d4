"""The docker backend, for GPU hosts: the judge and the contestant of one job in one container of the
runner image (docker/runner.Dockerfile), since CUDA IPC needs both in the same container. docs/sandbox.md,
"`docker`", says who may do what inside, the container's limits, and why an image of other code is refused."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from runner import settings
from runner.limits import Limits
from runner.problem import EXTRA_DIRS_ENV, problem_dirs
from runner.sandbox import uids
from runner.sandbox.base import Sandbox
from runner.sandbox.job import (
    RUNNER_ROOT,
    Job,
    JudgeRun,
    OnOut,
    contestant_env,
    die_with_parent,
    first_for_the_oom_killer,
    rlimits,
)

JOB_DIR = "/job"  # where the job directory appears inside the container
IMAGE_ROOT = "/opt/kernelboard"  # where the image holds the runner and the problems
LABEL = "kernelboard.job"
HASH_LABEL = "kernelboard.code-hash"
JUDGE_TMP_BYTES = 256 << 20  # the judge's own /tmp: caches of torch and triton
JUDGE_PIDS = 64  # on top of the contestant's process limit: the judge's threads and docker's init
CAPABILITIES = ["SETUID", "SETGID", "KILL"]  # the judge's; the contestant has none
IMAGE_USER, IMAGE_UID = "contestant", 10002  # the image's account, for workers that cannot lease a uid
HASHED = ("docker/runner.Dockerfile", "requirements.lock", "runner", "problems")  # what the image is made of
REBUILD = "scripts/docker.sh image"
MAX_OUT = 64 << 20  # of the judge's stdout; its report is far smaller
KEEP_ERR = 64 << 10  # of the judge's stderr, the tail


def code_hash(root: Path = RUNNER_ROOT) -> str:
    """sha256 over the paths and bytes of everything the runner image is built from (HASHED), in sorted
    order, bytecode caches excluded. The set-up labels the image with it; the worker refuses an image whose
    label differs."""
    h = hashlib.sha256()
    for name in HASHED:
        top = root / name
        files = (
            [top]
            if top.is_file()
            else sorted(
                p
                for p in top.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            )
        )
        for path in files:
            data = path.read_bytes()
            h.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def image_name() -> str:
    return settings.get("RUNNER_IMAGE")


def gpu_id() -> str:
    if settings.get("RUNNER_GPU"):
        return settings.get("RUNNER_GPU")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return visible or "0"


def cpu_quota(threads: int, host_cpus: int) -> int:
    """CPUs for the container, in the engine's nano-CPUs: the contestant's threads and the judge, never more
    than the engine has (which it refuses)."""
    return int(min(threads + 1, max(host_cpus, 1)) * 1e9)


def _size(n: int) -> str:
    return f"{n / (1 << 30):g} GiB" if n >= 1 << 30 else f"{n / (1 << 20):g} MiB"


def describe(config: dict, *, uid: int, device: str, digest: str = "") -> str:
    """The isolation note of the report, read off the container's configuration itself."""
    scratch = config["tmpfs"][f"{JOB_DIR}/scratch"].split("size=")[1].split(",")[0]
    gpu = f"one GPU (device {config['device_requests'][0]['DeviceIDs'][0]})" if device == "cuda" else "no GPU"
    image = config["image"] + (f" ({digest[:19]})" if digest else "")
    who = f"uid {uid}, leased for the job" if uid != IMAGE_UID else f"the image's uid {IMAGE_UID}"
    return (
        f"isolated by docker: judge and contestant in one container of {image}; the contestant as {who}, "
        f"with no capabilities; the judge as root with only {', '.join(config['cap_add'])}, non-dumpable; "
        f"no network, a read-only root, writable only a {_size(int(scratch))} scratch tmpfs and a "
        f"{_size(config['shm_size'])} /dev/shm; memory {_size(config['mem_limit'])} without swap, "
        f"{config['pids_limit']} processes and threads, {config['nano_cpus'] / 1e9:g} CPUs, {gpu}"
    )


def container_config(
    *,
    job_dir: Path,
    job_name: str,
    limits: Limits,
    device: str,
    threads: int,
    uid: int = IMAGE_UID,
    host_cpus: int = 1,
    image: str | None = None,
    gpu: str | None = None,
    image_digest: str = "",
) -> dict:
    """The keyword arguments of the docker SDK's `containers.create` for one job. Pure: the tests check it
    through the SDK's own argument builder, which needs no engine."""
    image = image or image_name()
    volumes = {str(job_dir): {"bind": JOB_DIR, "mode": "ro"}}
    # The image holds problems/; folders of imported problems (KERNELBOARD_PROBLEM_DIRS) are lent read-only.
    extra = [str(d) for d in problem_dirs()[1:] if d.is_dir()]
    for folder in extra:
        volumes[folder] = {"bind": folder, "mode": "ro"}
    if uid != IMAGE_UID:  # the leased uid's account (getpass, torch's inductor), in place of the image's
        for name in ("passwd", "group"):
            volumes[str(job_dir / ".sandbox-etc" / name)] = {"bind": f"/etc/{name}", "mode": "ro"}
    config = {
        "image": image,
        "command": ["python", "-m", "runner.judge"],
        "name": job_name,
        "labels": {LABEL: job_name},
        "working_dir": IMAGE_ROOT,
        "user": "0:0",
        # Attached, not detached: the engine then sets StdinOnce, so the judge's stdin closes when the
        # request is sent (detached, it would stay open and the judge would wait for it forever).
        "stdin_open": True,
        "tty": False,
        "network_mode": "none",
        "network_disabled": True,
        "read_only": True,
        "volumes": volumes,
        # exec: the contestant's load_inline and Triton map the libraries they build in its scratch, the
        # judge's Triton in its /tmp.
        "tmpfs": {
            f"{JOB_DIR}/scratch": f"rw,exec,nosuid,nodev,size={limits.scratch_bytes},mode=0700,uid={uid},gid={uid}",
            "/tmp": f"rw,exec,nosuid,nodev,size={JUDGE_TMP_BYTES},mode=0700",
        },
        "shm_size": limits.shm_bytes,  # /dev/shm, the contestant's second writable place
        "cap_drop": ["ALL"],
        "cap_add": list(CAPABILITIES),
        "security_opt": ["no-new-privileges:true"],
        "pids_limit": limits.processes + JUDGE_PIDS,
        # The job's memory, the judge's included (it runs in the container), tmpfs pages too
        "mem_limit": limits.job_memory_bytes,
        "memswap_limit": limits.job_memory_bytes,  # equal: no swap on top of the memory limit
        "nano_cpus": cpu_quota(threads, host_cpus),
        "ipc_mode": "private",
        "init": True,  # a reaper as pid 1: signals and orphans behave as on a host
        "log_config": {
            "type": "none"
        },  # the report and the judge's stderr come through the attach stream only
        "environment": {
            "HOME": "/tmp",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "TRITON_CACHE_DIR": "/tmp/.triton",
            "RUNNER_IMAGE": image,
            "RUNNER_IMAGE_DIGEST": image_digest or image,  # recorded in the report's env
            **({EXTRA_DIRS_ENV: os.pathsep.join(extra)} if extra else {}),
        },
        "ulimits": [{"Name": "core", "Soft": 0, "Hard": 0}],
    }
    if device == "cuda":
        config["device_requests"] = [
            {"Driver": "nvidia", "DeviceIDs": [gpu or gpu_id()], "Capabilities": [["gpu"]]}
        ]
    return config


def _engine_message(exc: Exception) -> str:
    """The engine's own words, on one line."""
    text = getattr(exc, "explanation", None) or str(exc) or type(exc).__name__
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return " ".join(str(text).split())


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
        raise RuntimeError(
            f"the docker sandbox needs a running Docker engine ({_engine_message(exc)}); scripts/docker.sh start "
            "starts one"
        ) from None
    return client


def _account_files(job_dir: Path, uid: int) -> None:
    """/etc/passwd and /etc/group for the container: root (the judge) and the contestant's leased uid."""
    etc = job_dir / ".sandbox-etc"
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text(
        f"root:x:0:0:root:/root:/usr/sbin/nologin\n{IMAGE_USER}:x:{uid}:{uid}:contestant:{JOB_DIR}/scratch:/usr/sbin/nologin\n"
    )
    (etc / "group").write_text(f"root:x:0:\n{IMAGE_USER}:x:{uid}:\n")
    for f in etc.iterdir():
        f.chmod(0o644)


def _demux(sock: socket.socket, deadline: float, on_out: OnOut | None = None) -> tuple[bytes, bytes, bool]:
    """Read the engine's multiplexed attach stream (8-byte headers: the stream, 3 zero bytes, the length)
    until it ends: (stdout, the tail of stderr, whether the deadline passed first). Each piece of stdout
    also goes to `on_out` as it arrives."""
    out, err = bytearray(), bytearray()
    buffer = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return bytes(out), bytes(err), True
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(1 << 16)
        except TimeoutError:
            return bytes(out), bytes(err), True
        if not chunk:
            return bytes(out), bytes(err), False
        buffer += chunk
        while len(buffer) >= 8:
            kind, size = buffer[0], struct.unpack(">I", buffer[4:8])[0]
            if len(buffer) < 8 + size:
                break
            payload, buffer = buffer[8 : 8 + size], buffer[8 + size :]
            if kind == 1 and len(out) < MAX_OUT:
                out += payload
                if on_out:
                    on_out(payload)
            elif kind == 2:
                err = (err + payload)[-KEEP_ERR:]


def _exit_status(code: int | None) -> int | None:
    """docker's init reports a judge killed by signal N as 128+N; Popen's convention is -N."""
    if code is not None and 128 < code < 128 + 65:
        return -(code - 128)
    return code


class DockerSandbox(Sandbox):
    name = "docker"
    isolated = True

    def __init__(self):
        self._client = None
        self._digest = ""
        self._cpus = 1
        self._lease: uids.Lease | None = None
        self._note = ""

    def served(self) -> bool:
        """Its judge starts inside the job's container (run_judge below), never from a fork server here."""
        return False

    @property
    def note(self) -> str:
        # On the host, after run_judge: read off the container it started. Inside the container (the judge
        # asks for the contestant's isolation): what the host passed in.
        return (
            self._note
            or settings.get("RUNNER_SANDBOX_NOTE")
            or (f"isolated by docker: judge and contestant in one container of {image_name()}")
        )

    # ---- on the host, in execute() --------------------------------------------------------------------

    def prepare(self, job_dir: Path) -> None:
        self._client = engine()
        name = image_name()
        try:
            image = self._client.images.get(name)
            self._cpus = int(self._client.info().get("NCPU") or 1)
        except Exception as exc:
            if type(exc).__name__ == "ImageNotFound":
                raise RuntimeError(
                    f"the runner image {name} is not on this host; build it with {REBUILD}"
                ) from None
            raise RuntimeError(f"the docker engine failed: {_engine_message(exc)}") from None
        have, want = (image.labels or {}).get(HASH_LABEL, ""), code_hash()
        if have != want:
            raise RuntimeError(
                f"the runner image {name} was built from other code than this checkout's (its code hash is "
                f"{have[:12] or 'missing'}, the checkout's {want[:12]}), so it would judge with stale code; "
                f"rebuild it with {REBUILD}"
            )
        self._digest = image.id
        uid = IMAGE_UID
        if uids.can_switch_uid():
            self._lease = uids.acquire()
            uid = self._lease.uid
            _account_files(job_dir, uid)
        # The engine gives the scratch tmpfs the owner and mode of the directory it covers; the judge also
        # learns the contestant's uid from it.
        scratch = job_dir / "scratch"
        if os.geteuid() == 0:
            os.chown(scratch, uid, uid)
        scratch.chmod(0o700)

    def run_judge(
        self, request: dict, job_dir: Path, env: dict[str, str], timeout_s: float, on_out: OnOut | None = None
    ) -> JudgeRun:
        from runner.spec import JobSpec

        spec = JobSpec(**{**request["spec"], "secret_seed": None})
        limits = Limits(**request["limits"])
        uid = self._lease.uid if self._lease else IMAGE_UID
        config = container_config(
            job_dir=job_dir,
            job_name=_job_name(job_dir),
            limits=limits,
            device=spec.device,
            threads=spec.threads,
            uid=uid,
            host_cpus=self._cpus,
            image_digest=self._digest,
        )
        self._note = describe(config, uid=uid, device=spec.device, digest=self._digest)
        config["environment"]["RUNNER_SANDBOX_NOTE"] = self._note
        client = self._client or engine()
        deadline = time.monotonic() + timeout_s
        container = None
        try:
            container = client.containers.create(**config)
            stream = container.attach_socket(params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            sock = getattr(stream, "_sock", stream)
            try:
                container.start()
                sock.sendall(json.dumps({**request, "job_dir": JOB_DIR}).encode())
                sock.shutdown(socket.SHUT_WR)  # the end of the judge's stdin (StdinOnce)
                out, err, timed_out = _demux(sock, deadline, on_out)
            finally:
                sock.close()
            if timed_out:
                container.kill()
                return JudgeRun(out, err, timed_out=True)
            status = container.wait(timeout=30).get("StatusCode")
            return JudgeRun(out, err, returncode=_exit_status(status))
        except Exception as exc:  # the engine refused or failed: the platform's fault, in the engine's words
            message = f"the docker engine failed to run the judge: {_engine_message(exc)}"
            return JudgeRun(b"", message.encode(), returncode=None)
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except Exception:
                    pass  # cleanup() tries again, by the job's label

    def cleanup(self, job_dir: Path) -> None:
        try:
            if self._client is not None:
                for container in self._client.containers.list(
                    all=True, filters={"label": f"{LABEL}={_job_name(job_dir)}"}
                ):
                    container.remove(force=True, v=True)
        finally:
            self._release()

    def _release(self) -> None:
        if self._lease is None:
            return
        # The container's processes run as the uid on this kernel too: none may remain before it is reused.
        if uids.kill_all(self._lease.uid):
            self._lease.release()
        self._lease = None  # one that refused to die keeps the uid locked until this process ends

    # ---- inside the container, in the judge --------------------------------------------------------------

    def start(self, job: Job, argv: list[str], pass_fds: tuple[int, ...], stdout: int) -> subprocess.Popen:
        uid = job.scratch.stat().st_uid  # the owner of the scratch tmpfs: the host chose it
        if os.geteuid() != 0 or uid == 0:
            raise RuntimeError("the docker sandbox's judge must run as root with a non-root scratch owner")
        limits = rlimits(job.limits, job.device)
        if uid != IMAGE_UID:  # a uid of this job only: the process limit counts its own processes
            limits.append((resource.RLIMIT_NPROC, (job.limits.processes, job.limits.processes)))
        env = contestant_env(job, f"{RUNNER_ROOT}:{job.dir}")
        env.update(USER=IMAGE_USER, LOGNAME=IMAGE_USER)

        def pre_exec() -> None:
            first_for_the_oom_killer()  # before the judge: it shares the container's memory
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)  # every capability is gone with it
            die_with_parent()  # after the uid change, which clears it
            for which, value in limits:
                resource.setrlimit(which, value)

        return subprocess.Popen(
            [sys.executable, *argv],
            cwd=job.dir,
            env=env,
            pass_fds=pass_fds,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own session and process group: killed as a whole
            preexec_fn=pre_exec,
        )


def _job_name(job_dir: Path) -> str:
    return f"kernelboard-{job_dir.name}"


if __name__ == "__main__":
    if sys.argv[1:] == ["hash"]:
        print(code_hash())
    else:
        sys.exit("usage: python -m runner.sandbox.docker hash")

"""Whether this host judges as the tested default does (bubblewrap as root: a cgroup and a leased uid per
job, the fork server; GPU hosts: docker with this checkout's image): checked when a worker starts, and for
every CPU job. docs/platform.md, "Workers: what they judge with", has the table and the /proc path by name."""

from __future__ import annotations

import os

from runner import settings

SETTING = "RUNNER_CPU_ACCOUNTING"
PROC_SENTENCE = (
    "CPU time was read from /proc, not from the job's cgroup (this host gave the job none): a process the "
    "kernel reaps by itself, or one that runs between the judge's stops, may go uncharged; a leaderboard run "
    "is judged this way only where the operator set RUNNER_CPU_ACCOUNTING=proc."
)
_HOW = "docs/platform.md, 'Workers: what they judge with'"


def proc_named() -> bool:
    """Whether the operator asked for the /proc path by name."""
    return settings.get(SETTING).strip().lower() == "proc"


def _refusal(what: str) -> str:
    return f"{what}; or set {SETTING}=proc to judge CPU time from /proc instead, knowingly ({_HOW})"


def why_not_ready(sandbox: str, device: str) -> str | None:
    """Why a worker that judges `device` jobs ("cpu" or "cuda") with `sandbox` would not judge them as the
    tested default does, in the operator's words with what to change; None when it would. `sandbox` is
    the resolved backend ("" where none is available)."""
    if not sandbox:
        return (
            "no sandbox is available on this host: install bubblewrap (Debian: apt-get install bubblewrap) "
            "or configure a Docker engine; the platform never judges unisolated by default"
        )
    if device == "cuda":
        return _gpu_problem(sandbox)
    if proc_named():
        return None
    if sandbox == "none":
        # Named by the operator (it is never a default): unisolated and charged from /proc by request, for
        # tests only; the runner refuses it for leaderboard runs, and every report says "not isolated".
        return None
    if sandbox == "docker":
        return _refusal(
            "a CPU worker on the docker backend judges inside the job's container, where it gets no job "
            "cgroup: set RUNNER_SANDBOX=bwrap for CPU workers (docker is for GPU hosts)"
        )
    if os.geteuid() != 0:
        return _refusal(
            f"the worker runs as uid {os.geteuid()}, not root, so bubblewrap can neither lease a uid per job "
            "(no per-job process limit) nor make the job's cgroup: run the worker as root (docker/compose.yaml "
            "does, with the few capabilities it needs)"
        )
    missing = cgroup_problem()
    if missing:
        return _refusal(missing)
    return None


def cgroup_problem() -> str | None:
    """Why this process cannot make a job's cgroup, found by making one (and removing it); None when it can."""
    from runner.sandbox import cgroup

    made = cgroup.create()
    if made is not None:
        cgroup.remove(made)
        return None
    base = cgroup.parent()
    if base is None:
        return (
            "no cgroup v2 hierarchy is mounted here (cgroup v1 only, or a container that mounts none), so "
            "the judge could not charge CPU time from the job's cgroup: mount cgroup2, or in a container "
            "give the worker a cgroup namespace of its own (compose: `cgroup: private`)"
        )
    try:
        base.mkdir(exist_ok=True)
        probe = base / f"probe-{os.getpid()}"
        probe.mkdir()
    except OSError as exc:
        return (
            f"the worker cannot make a cgroup under {base} ({exc.strerror}): the cgroup v2 hierarchy must be "
            "writable by the worker (in a container: `cgroup: private` and the entrypoint's remount, "
            "docker/worker-entrypoint.sh; or RUNNER_CGROUP_PARENT naming a delegated folder)"
        )
    try:
        files = [f for f in ("cpu.stat", "cgroup.freeze") if not (probe / f).exists()]
    finally:
        probe.rmdir()
    return f"a cgroup under {base} lacks {' and '.join(files) or 'what a job needs'} (a kernel before 5.2?)"


def _gpu_problem(sandbox: str) -> str | None:
    if sandbox != "docker":
        return (
            f"GPU workers judge with the docker backend (RUNNER_SANDBOX=docker), not {sandbox}: the judge "
            "and the contestant share a container bounded by its cgroup, with one GPU; bubblewrap's CUDA path "
            "is not verified"
        )
    if os.geteuid() != 0:
        return (
            f"the worker runs as uid {os.geteuid()}, not root, so it cannot lease a uid per job on the host "
            "(the contestant would share the image's uid, and RLIMIT_NPROC with every job): run it as root"
        )
    from runner.sandbox.docker import HASH_LABEL, REBUILD, code_hash, engine, image_name

    try:
        client = engine()
    except RuntimeError as exc:
        return str(exc)
    try:
        labels = client.images.get(image_name()).labels or {}
    except Exception:
        return f"the runner image {image_name()} is not on this host; build it with {REBUILD}"
    if labels.get(HASH_LABEL) != code_hash():
        return f"the runner image {image_name()} was built from other code than this checkout's; {REBUILD}"
    return None


def leaderboard_refusal(device: str, sandbox: str, allow_unisolated: bool, has_cgroup: bool) -> str | None:
    """Why a leaderboard run must not be judged here: a CPU job without the job's cgroup, unless the operator
    named the /proc path (or the runner's own tests asked for an unisolated run)."""
    if device != "cpu" or has_cgroup or proc_named() or (sandbox == "none" and allow_unisolated):
        return None
    why = "the worker is not root" if os.geteuid() != 0 else (cgroup_problem() or "the job's cgroup failed")
    if sandbox == "docker":
        why = "the docker backend's judge gets no job cgroup"
    return (
        f"a ranked run on a CPU needs the job's cgroup to charge CPU time, and this host gave none ({why}); "
        f"set {SETTING}=proc to rank runs charged from /proc, knowingly"
    )

"""A worker refuses to start where it would not judge as the tested default does (runner/readiness.py):
without the job's cgroup and leased uids on a CPU host, without the docker backend, root and the runner
image on a GPU host, or without any sandbox. The operator reads why, and what to change, in words."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from runner import readiness
from runner.vocabulary import DEVICE_KINDS, queue_device_kind

# sysexits.h's EX_CONFIG: the worker's configuration, not a crash; a supervisor should not loop on it.
EXIT_STATUS = 78


def worker_refusal(device_kinds: Iterable[str]) -> str | None:
    """Why a worker for these queues must not start; None when it may. A stand-in judge (RUNNER_EXECUTE,
    tests only) judges nothing on this host, so nothing is checked for it."""
    if settings.RUNNER_EXECUTE != "runner:execute":
        return None
    for queue in sorted(set(device_kinds)):
        kind = queue_device_kind(queue)  # "cpu" and "cpu.explore" judge alike
        if kind is None:
            continue  # not a judging queue; Celery itself says what it consumes
        why = readiness.why_not_ready(settings.RUNNER_SANDBOX, DEVICE_KINDS[kind].runner_device)
        if why:
            return f"This worker will not judge the {queue} queue: {why}."
    return None

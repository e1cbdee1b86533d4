"""Whether the docker tests can run here: a Docker engine that answers and the runner image of this
checkout. Where either is missing a test skips with the reason, except under CI (CI=true), where the
set-up (scripts/docker.sh setup, run by `make test`) must have provided both: there it fails instead.

An image older than the checkout (someone changed runner/ or problems/ since the set-up) is rebuilt first,
where an engine answers: a few seconds, since only the last layers change."""

from __future__ import annotations

import os
import subprocess

import pytest

from runner.sandbox import RUNNER_ROOT


def missing() -> str | None:
    """Why no docker job can run here, or None."""
    from runner.sandbox.docker import HASH_LABEL, REBUILD, code_hash, engine, image_name

    try:
        client = engine()
    except RuntimeError as exc:
        return str(exc)
    try:
        image = client.images.get(image_name())
    except Exception:
        return f"the runner image {image_name()} is not built ({REBUILD})"
    if (image.labels or {}).get(HASH_LABEL) != code_hash():
        return f"the runner image {image_name()} is older than this checkout ({REBUILD})"
    return None


def require() -> None:
    why = missing()
    if why and "scripts/docker.sh image" in why:  # an engine answers; the image is missing or stale
        subprocess.run(
            ["bash", "scripts/docker.sh", "image"],
            cwd=RUNNER_ROOT,
            timeout=900,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        why = missing()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI runs the docker tests, but {why}")
    pytest.skip(f"needs a Docker engine and the runner image: {why}")


def leftovers(client) -> dict[str, set[str]]:
    """What a job may leave on the engine: containers, volumes, image layers (every image id, dangling and
    intermediate ones included)."""
    return {
        "containers": {c.id for c in client.containers.list(all=True)},
        "volumes": {v.id for v in client.volumes.list()},
        "images": {i.id for i in client.images.list(all=True)},
    }

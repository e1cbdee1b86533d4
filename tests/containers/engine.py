"""Whether the docker tests can run here: a Docker engine that answers and the runner image of this
checkout. Where either is missing a test skips with the reason, except under CI (CI=true), where the
set-up (scripts/docker.sh setup, run by `make test`) must have provided both: there it fails instead.

An image older than the checkout (someone changed runner/ or problems/ since the set-up) is rebuilt first,
where an engine answers: a few seconds, since only the last layers change."""

from __future__ import annotations

import os
import subprocess
import time

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


class Jobs:
    """The docker jobs that execute() starts in this process while a test runs (their container names,
    recorded as the sandbox prepares them), and what of them is still on the engine. A test checks its own
    jobs only: another job on the same engine at the same time (another test run, a worker) is none of its
    business, and counting every container or volume of the engine would fail it."""

    def __init__(self, client, monkeypatch):
        from runner.sandbox.docker import DockerSandbox, _job_name

        self.client = client
        self.names: set[str] = set()  # the job's container name, also the value of its label
        self.since = time.time() - 1
        prepare = DockerSandbox.prepare

        def recording(sandbox, job_dir):
            self.names.add(_job_name(job_dir))
            return prepare(sandbox, job_dir)

        monkeypatch.setattr(DockerSandbox, "prepare", recording)

    def _events(self, **filters) -> list[dict]:
        return list(self.client.events(since=self.since, until=time.time(), decode=True, filters=filters))

    def containers(self) -> set[str]:
        """The id of every container the engine created for these jobs (its events, by the job label)."""
        from runner.sandbox.docker import LABEL

        created = self._events(type="container", event="create", label=LABEL)
        return {e["Actor"]["ID"] for e in created if e["Actor"]["Attributes"].get(LABEL) in self.names}

    def leftovers(self) -> dict[str, set[str]]:
        """What these jobs left on the engine: their containers (by id, name or label), the volumes their
        containers mounted, image layers committed from them (which carry the job label). Listed without
        inspecting each item, which another job may remove meanwhile."""
        from runner.sandbox.docker import LABEL

        ids = self.containers()
        mounted = self._events(type="volume", event="mount")
        volumes = {e["Actor"]["ID"] for e in mounted if e["Actor"]["Attributes"].get("container") in ids}
        api = self.client.api
        return {
            "containers": {
                c["Id"]
                for c in api.containers(all=True)
                if c["Id"] in ids
                or (c.get("Labels") or {}).get(LABEL) in self.names
                or any(n.lstrip("/") in self.names for n in c.get("Names") or [])
            },
            "volumes": {v["Name"] for v in api.volumes().get("Volumes") or [] if v["Name"] in volumes},
            "images": {
                i["Id"] for i in api.images(all=True) if (i.get("Labels") or {}).get(LABEL) in self.names
            },
        }

"""Real jobs in the runner image on the engine: what the contestant can and cannot do inside the container it
shares with the judge, a C++ extension built and loaded from its scratch, engine errors as platform faults,
and nothing left on the engine afterwards."""

from __future__ import annotations

import json

import pytest

from runner import JobSpec, execute
from runner.sandbox import RUNNER_ROOT
from tests.containers import engine

CORRECT = (RUNNER_ROOT / "problems/vectoradd/templates/pytorch.py").read_text()

PROBE = """
import json, os, signal
import torch

facts = {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "user": os.environ.get("USER")}
with open("/proc/self/status") as f:
    facts["caps"] = [l.split()[1] for l in f if l.startswith(("CapEff", "CapPrm", "CapBnd"))][:2]
import getpass
facts["getpass"] = getpass.getuser()
judge = os.getppid()
for who, pid in (("judge", judge), ("init", 1)):
    try:
        os.kill(pid, signal.SIGCONT)
        facts[f"signal_{who}"] = "sent"
    except OSError as exc:
        facts[f"signal_{who}"] = exc.strerror
for entry in ("mem", "environ", "fd", "maps"):
    try:
        path = f"/proc/{judge}/{entry}"
        os.listdir(path) if entry == "fd" else open(path, "rb").read(1)
        facts[f"read_{entry}"] = "read"
    except OSError as exc:
        facts[f"read_{entry}"] = exc.strerror
for place in ("/tmp", "/job", "/", "/opt/kernelboard", "/dev/shm", os.environ["TMPDIR"]):
    try:
        with open(os.path.join(place, "kb-probe"), "w") as f:
            f.write("x")
        facts[f"write {place}"] = "written"
    except OSError as exc:
        facts[f"write {place}"] = exc.strerror
print("PROBE " + json.dumps(facts))


def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""

INLINE_CPP = """
import torch
from torch.utils.cpp_extension import load_inline

_ext = load_inline(
    name="kb_vectoradd",
    cpp_sources="torch::Tensor add(torch::Tensor a, torch::Tensor b, torch::Tensor c) { return at::add_out(c, a, b); }",
    functions=["add"],
    verbose=False,
)


def custom_kernel(data):
    A, B, C = data
    return _ext.add(A, B, C)
"""


@pytest.fixture
def client(monkeypatch):
    engine.require()
    from runner.sandbox.docker import engine as client_of

    client = client_of()
    jobs = engine.Jobs(client, monkeypatch)  # the test's own jobs: others may run on the same engine
    yield client
    left = jobs.leftovers()
    assert left == {"containers": set(), "volumes": set(), "images": set()}, (
        f"a job left a container, volume or image layer behind: {left}"
    )


def judge(source: str, **kw):
    return execute(
        JobSpec(problem="vectoradd", source=source, sandbox="docker", device="cpu", call_s=60, **kw)
    )


def test_the_contestant_has_its_own_uid_no_capabilities_and_cannot_reach_the_judge(client):
    report = judge(PROBE)
    assert report.verdict == "passed", report.message + report.logs[-3000:]
    line = next(ln for ln in report.logs.splitlines() if ln.startswith("PROBE "))
    facts = json.loads(line[len("PROBE ") :])
    assert facts["uid"] == facts["gid"] and facts["uid"] not in (0, 10001) and facts["groups"] == []
    assert facts["caps"] == ["0000000000000000", "0000000000000000"]  # effective and permitted
    assert facts["user"] == facts["getpass"] == "contestant"
    assert facts["signal_judge"] == facts["signal_init"] == "Operation not permitted"
    assert all(facts[f"read_{e}"] == "Permission denied" for e in ("mem", "environ", "fd", "maps")), facts
    assert facts["write /tmp"] == "Permission denied"  # the judge's, mode 0700
    for place in ("/job", "/", "/opt/kernelboard"):
        assert facts[f"write {place}"] == "Read-only file system", facts
    assert facts["write /dev/shm"] == "written" and facts["write /job/scratch"] == "written"


@pytest.mark.slow
def test_a_cpp_extension_builds_and_loads_from_the_scratch(client):
    report = judge(INLINE_CPP)
    assert report.verdict == "passed", report.message + report.logs[-3000:]


def test_an_engine_error_is_a_platform_fault_in_the_engines_words(client, monkeypatch):
    # below the engine's minimum
    monkeypatch.setenv("RUNNER_LIMITS", json.dumps({"job_memory_bytes": 1 << 20}))
    report = judge(CORRECT)
    assert report.verdict == "error" and report.platform_fault, report.message
    assert "Minimum memory limit allowed is 6MB" in report.message + report.logs, report.logs
    assert "Traceback" not in report.message + report.logs


def test_an_image_of_other_code_is_refused_with_both_hashes_and_the_command(client, monkeypatch):
    monkeypatch.setenv("RUNNER_IMAGE", "kernelboard-base:bookworm")  # has no code-hash label
    report = judge(CORRECT)
    assert report.verdict == "error" and report.platform_fault
    assert "built from other code" in report.message and "its code hash is missing" in report.message
    assert "scripts/docker.sh image" in report.message and "\n" not in report.message

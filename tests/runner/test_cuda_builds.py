"""CUDA submissions built by load_inline: the tools on the contestant's PATH, the golden CUDA solution kept to
GPUs, and a CPU run of it told in words that the run has no GPU. The build itself needs a GPU: the golden
solution runs in tests/runner/test_gpu.py (scripts/gpu_check.sh)."""

import ast
import os

import pytest
import torch

from runner import JobSpec, execute
from runner.contestant.harness import build_tools
from runner.problem import PROBLEMS_DIR, Solution
from tests.runner import golden


def _toolkit(root):
    nvcc = root / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text("#!/bin/sh\n")
    nvcc.chmod(0o755)
    return root


def test_a_gpu_contestant_gets_the_cuda_toolkit_and_ninja_on_its_path(tmp_path):
    home = _toolkit(tmp_path / "cuda")
    env = build_tools({"PATH": "/usr/local/bin:/usr/bin:/bin"}, "cuda", "/opt/venv/bin/python3", [str(home)])
    assert env["CUDA_HOME"] == str(home)
    # appended: the system's tools first, then the Python's own folder (pip's ninja), then nvcc's
    assert env["PATH"].split(os.pathsep) == [
        "/usr/local/bin",
        "/usr/bin",
        "/bin",
        "/opt/venv/bin",
        f"{home}/bin",
    ]


def test_the_toolkit_is_looked_for_where_cuda_home_says_first(tmp_path):
    named, default = _toolkit(tmp_path / "named"), _toolkit(tmp_path / "default")
    env = build_tools({"PATH": "/bin", "CUDA_HOME": str(named)}, "cuda", "/usr/bin/python3", [str(default)])
    assert env["CUDA_HOME"] == str(named)
    assert env["PATH"] == f"/bin:/usr/bin:{named}/bin"


def test_no_toolkit_and_a_cpu_run_add_only_the_pythons_folder(tmp_path):
    (tmp_path / "empty" / "bin").mkdir(parents=True)  # a folder without nvcc is no toolkit
    env = build_tools({"PATH": "/usr/bin:/bin"}, "cuda", "/opt/venv/bin/python3", [str(tmp_path / "empty")])
    assert env == {"PATH": "/usr/bin:/bin:/opt/venv/bin"}
    home = _toolkit(tmp_path / "cuda")
    assert build_tools({"PATH": "/bin"}, "cpu", "/bin/python3", [str(home)]) == {"PATH": "/bin"}


def test_the_golden_cuda_solution_is_a_gpus_only():
    on_cpu = {s.id for s in golden.correct("vectoradd")}
    on_gpu = {s.id for s in golden.correct("vectoradd", device="cuda")}
    assert "vectoradd/solutions/correct/cuda_inline.py" in on_gpu - on_cpu
    assert "vectoradd/templates/pytorch.py" in on_cpu & on_gpu


@pytest.mark.parametrize("problem", sorted(p.parent.name for p in PROBLEMS_DIR.glob("*/problem.py")))
def test_every_problem_has_a_cuda_template_for_gpus_only(problem):
    """Each problem's templates/cuda.py (load_inline): it parses, defines custom_kernel, builds with
    load_inline, and is a GPU's only, so the CPU tests leave it out; test_gpu.py judges it on a GPU."""
    path = PROBLEMS_DIR / problem / "templates" / "cuda.py"
    source = path.read_text()
    tree = ast.parse(source)
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "custom_kernel" in functions
    assert "from torch.utils.cpp_extension import load_inline" in source and "cuda_sources=" in source
    assert Solution.read(path, "correct").device == "cuda"
    own = f"{problem}/templates/cuda.py"
    assert own in {s.id for s in golden.correct(problem, device="cuda")}
    assert own not in {s.id for s in golden.correct(problem)}


@pytest.mark.judge
@pytest.mark.skipif(
    torch.version.cuda is not None,
    reason="torch's CPU build (the CPU workers') refuses to build CUDA code; a CUDA build would build it",
)
def test_a_cuda_kernel_on_a_cpu_run_is_told_the_run_has_no_gpu():
    (solution,) = [
        s for s in golden.correct("vectoradd", device="cuda") if s.id.endswith("correct/cuda_inline.py")
    ]
    report = execute(
        JobSpec(
            problem="vectoradd",
            source=solution.source,
            mode="test",
            device="cpu",
            sandbox="none",
            allow_unisolated=True,
        )
    )
    assert report.verdict == "error", report.message
    # torch's CPU build says "CUDA_HOME environment variable is not set"; the message says what it means
    assert "this run is on the CPU, which has no GPU" in report.message, report.message
    assert "submit it for a GPU device kind" in report.message

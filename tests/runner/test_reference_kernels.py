"""Problems in GPU MODE's reference-kernels layout (runner/reference_kernels.py): read, refused where they
cannot map, imported as a problem folder, and judged through the real CLI with the default sandbox.

The folders under tests/runner/reference_kernels/ are written for these tests in that layout; none is
copied from GPU MODE's repositories."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from runner.problem import Problem
from runner.reference_kernels import ImportRefused, import_folder, read_task

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = Path(__file__).resolve().parent / "reference_kernels"
ROWSUM = LAYOUT / "rowsum_py"
WRONG_ROWSUM = "from task import input_t, output_t\n\n\ndef custom_kernel(data: input_t) -> output_t:\n    return data.mean(dim=1)\n"


def write_folder(tmp_path: Path, yml: str, reference: str | None = None) -> Path:
    folder = tmp_path / "src" / "demo_py"
    folder.mkdir(parents=True)
    (folder / "task.yml").write_text(yml)
    (folder / "task.py").write_text((ROWSUM / "task.py").read_text())
    (folder / "reference.py").write_text(reference or (ROWSUM / "reference.py").read_text())
    return folder


CASES = 'tests:\n  - {"rows": 4, "cols": 8, "seed": 1}\nbenchmarks:\n  - {"rows": 8, "cols": 8, "seed": 2}\n'


@pytest.mark.parametrize(
    "yml, words",
    [
        ('lang: "cu"\n' + CASES, "only Python problems"),
        ("multi_gpu: true\n" + CASES, "multi-GPU problems cannot be imported"),
        ('ranking_by: "median"\n' + CASES, "ranking_by: 'median'; choose one of geom, mean, last"),
        (
            'tests:\n  - {"rows": 4, "cols": 8}\nbenchmarks:\n  - {"rows": 8, "cols": 8, "seed": 2}\n',
            "tests[0] must be a mapping with an integer seed",
        ),
        ('tests:\n  - {"rows": 4, "seed": 1}\n', "task.yml has no benchmarks"),
        ("tests: [unclosed\n", "task.yml is not valid YAML"),
    ],
)
def test_what_cannot_map_is_refused_with_the_reason(tmp_path, yml, words):
    folder = write_folder(tmp_path, yml)
    with pytest.raises(ImportRefused, match=words.replace("(", r"\(").replace("[", r"\[")):
        read_task(folder)


def test_a_folder_without_task_yml_or_reference_is_refused(tmp_path):
    with pytest.raises(ImportRefused, match="has no task.yml"):
        read_task(tmp_path)
    folder = write_folder(tmp_path, CASES)
    (folder / "reference.py").unlink()
    with pytest.raises(ImportRefused, match="has no reference.py"):
        read_task(folder)


def test_a_reference_whose_check_rejects_its_own_output_is_refused(tmp_path):
    broken = (
        ROWSUM / "reference.py"
    ).read_text() + "\n\ndef check_implementation(data, output):\n    return False, 'never right'\n"
    folder = write_folder(tmp_path, CASES, broken)
    (tmp_path / "problems").mkdir()
    with pytest.raises(
        ImportRefused, match="check_implementation rejects the reference's own output on .*: never right"
    ):
        import_folder(folder, tmp_path / "problems")


def test_an_import_writes_one_problem_folder_that_maps_task_yml(tmp_path):
    (tmp_path / "problems").mkdir()
    imported = import_folder(ROWSUM, tmp_path / "problems")
    assert imported.name == "rowsum_py" and imported.cpu
    folder = tmp_path / "problems" / "rowsum_py"
    assert sorted(p.name for p in folder.iterdir()) == [
        "problem.py",
        "reference.py",
        "statement.md",
        "task.py",
        "templates",
    ]
    assert (folder / "reference.py").read_text() == (ROWSUM / "reference.py").read_text()  # unchanged
    assert (folder / "templates" / "pytorch.py").read_text() == (ROWSUM / "template.py").read_text()
    assert any("Triton's missing_triton_template.py is not there" in n for n in imported.notes)
    assert any("test_timeout" in n for n in imported.notes)
    problem = Problem.at(folder)
    assert problem.title == "Row sums of a float32 matrix"
    assert problem.ranking_by == "geom"
    tests = problem.cases("test", "cpu")
    assert [(c.params, c.seed) for c in tests] == [
        ({"rows": 7, "cols": 33}, 11),
        ({"rows": 64, "cols": 64}, 12),
    ]
    assert problem.cases("benchmark", "cuda")[1].params == {"rows": 256, "cols": 512}
    assert problem.counts(tests[0]) == (0.0, 0.0)  # task.yml states none: no floor

    with pytest.raises(ImportRefused, match="exists already; --replace"):
        import_folder(ROWSUM, tmp_path / "problems")
    before = problem.version
    import_folder(ROWSUM, tmp_path / "problems", replace=True)
    assert Problem.at(folder).version == before  # the same content is the same version
    (folder / "reference.py").write_text((folder / "reference.py").read_text() + "\n# changed\n")
    assert Problem.at(folder).version != before


def test_the_adapted_reference_takes_a_fresh_seed_and_the_device_and_answers_ok_message(tmp_path):
    import_folder(ROWSUM, tmp_path)
    reference = Problem.at(tmp_path / "rowsum_py").load_reference()
    a = reference.generate_input(rows=5, cols=6, seed=1, device="cpu")
    b = reference.generate_input(rows=5, cols=6, seed=2, device="cpu")
    assert a.shape == (5, 6) and not torch.equal(a, b)
    assert reference.check_implementation(a, a.sum(dim=1)) == (True, "")
    ok, message = reference.check_implementation(a, a.sum(dim=1) + 1)
    assert not ok and "values differ beyond rtol=0.0001" in message


@pytest.mark.judge
def test_a_cuda_only_generator_is_offered_on_gpus_only_and_says_so(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the generator runs here (the GPU path is the plain one)")
    imported = import_folder(LAYOUT / "scale_cuda_py", tmp_path)
    assert not imported.cpu
    assert any("offered on GPUs only" in n for n in imported.notes)
    assert any("extra_header.h is not carried over" in n for n in imported.notes)
    problem = Problem.at(tmp_path / "scale_cuda_py")
    assert problem.cases("test", "cpu") == [] and len(problem.cases("test", "cuda")) == 1
    assert problem.ranking_by == "last"  # GPU MODE's default when task.yml names none
    # The older check convention: a message, empty when right.
    reference = problem.load_reference()
    x = torch.ones(4, dtype=torch.float16)
    assert reference.check_implementation(x, x * 2) == (True, "")
    assert reference.check_implementation(x, x) == (False, "mismatch found")
    out = cli(tmp_path, "run", "scale_cuda_py", str(ROWSUM / "template.py"), "--device", "cpu")
    assert out.returncode == 1 and "has no cases for the CPU: its inputs are made on a GPU only" in out.stdout


def cli(problems: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "KERNELBOARD_PROBLEM_DIRS": str(problems)}
    return subprocess.run(
        [sys.executable, "-m", "runner", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )


MATCH_REFERENCE = (
    (ROWSUM / "reference.py")
    .read_text()
    .replace("from utils import make_match_reference", "from utils import match_reference")
    .replace(
        "check_implementation = make_match_reference(ref_kernel, rtol=1e-4, atol=1e-4)",
        "def check_implementation(data: input_t, output: output_t):\n"
        "    return match_reference(data, output, reference=ref_kernel, rtol=1e-4, atol=1e-4)",
    )
)


def test_a_reference_checking_with_utils_match_reference_imports_and_checks(tmp_path):
    assert "return match_reference(data, output, reference=ref_kernel" in MATCH_REFERENCE
    (tmp_path / "problems").mkdir()
    import_folder(write_folder(tmp_path, CASES, MATCH_REFERENCE), tmp_path / "problems")
    reference = Problem.at(tmp_path / "problems" / "demo_py").load_reference()
    data = reference.generate_input(rows=5, cols=6, seed=1, device="cpu")
    assert reference.check_implementation(data, data.sum(dim=1)) == (True, "")
    ok, message = reference.check_implementation(data, data.sum(dim=1) + 1)
    assert not ok and "5 of 5 values differ beyond rtol=0.0001, atol=0.0001" in message


def test_match_reference_forgives_a_share_of_values_on_mixed_mla_inputs_only():
    from runner.contestant.utils import match_reference

    config = dict.fromkeys(
        ("num_heads", "num_kv_heads", "qk_head_dim", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim"), 1
    )
    q = torch.zeros(100)
    mla, plain = (q, q, q, q, config), (q, q, q, q, {})
    one_off = q.clone()
    one_off[0] = 1.0  # 1 % of the values differ
    ok, message = match_reference(mla, one_off, reference=lambda data: data[0])
    assert ok and message.startswith("warning: mismatch_ratio=0.010000 (<= tol_err_ratio=0.05)")
    assert not match_reference(plain, one_off, reference=lambda data: data[0])[0]
    assert not match_reference(mla, one_off, reference=lambda data: data[0], tol_err_ratio=0.001)[0]


@pytest.mark.judge
def test_a_problem_checking_with_match_reference_judges_correct_and_wrong(tmp_path):
    (tmp_path / "problems").mkdir()
    import_folder(write_folder(tmp_path, CASES, MATCH_REFERENCE), tmp_path / "problems")
    right = tmp_path / "right.py"
    right.write_text(WRONG_ROWSUM.replace("data.mean(dim=1)", "data.sum(dim=1)"))
    out = cli(tmp_path / "problems", "run", "demo_py", str(right), "--mode", "test")
    assert out.returncode == 0, out.stdout + out.stderr
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG_ROWSUM)
    out = cli(tmp_path / "problems", "run", "demo_py", str(wrong), "--mode", "test")
    assert out.returncode == 1 and "values differ beyond rtol=0.0001, atol=0.0001" in out.stdout, out.stdout


@pytest.mark.judge
@pytest.mark.slow
def test_the_cli_judges_an_imported_problem_correct_and_wrong(tmp_path):
    import_folder(ROWSUM, tmp_path)
    template = tmp_path / "rowsum_py" / "templates" / "pytorch.py"
    out = cli(
        tmp_path, "run", "rowsum_py", str(template), "--mode", "benchmark", "--json", "--case-budget", "0.05"
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "passed" and report["score_s"] > 0
    assert report["isolation"].startswith(("isolated by bubblewrap", "isolated by docker"))
    benchmarks = [c for c in report["cases"] if c["kind"] == "benchmark"]
    assert len(benchmarks) == 2 and all(c["floor_s"] is None for c in benchmarks)

    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG_ROWSUM)
    out = cli(tmp_path, "run", "rowsum_py", str(wrong), "--mode", "test")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "rowsum_py[rows=7-cols=33] (test)  FAILED" in out.stdout
    assert "values differ beyond rtol=0.0001, atol=0.0001" in out.stdout

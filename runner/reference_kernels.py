"""Problems in GPU MODE's reference-kernels layout (task.yml, reference.py, task.py) imported as problem
folders here (`import_folder`); runner/gpumode.py runs such a reference at run time. docs/problems.md,
"Importing a problem from GPU MODE's reference-kernels layout", has what maps and what is refused."""

from __future__ import annotations

import pprint
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from runner.problem import RANKINGS

# The files of a GPU MODE run that this platform supplies itself: the submission, the harness (its eval.py)
# and the helpers (its utils.py; runner/contestant/utils.py is this platform's own, written here).
SUPPLIED = {"submission.py", "eval.py", "utils.py"}
TEMPLATE_NAMES = {
    "Python": "pytorch.py",
    "Triton": "triton.py",
    "CUDA": "cuda.py",
    "HIP": "hip.py",
    "CuteDSL": "cutedsl.py",
}
NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")


class ImportRefused(ValueError):
    """The folder cannot become a problem here; the message says why, in the operator's words."""


@dataclass
class TaskFolder:
    """What a reference-kernels folder says, read and checked."""

    path: Path
    description: str
    tests: list[dict[str, Any]]
    benchmarks: list[dict[str, Any]]
    ranking_by: str
    templates: dict[str, Path]
    notes: list[str] = field(default_factory=list)  # what was left out, for the operator


def read_task(path: Path) -> TaskFolder:
    """Read and check `path/task.yml`; ImportRefused says what a folder lacks or what cannot map."""
    path = Path(path).resolve()
    spec_file = path / "task.yml"
    if not spec_file.is_file():
        raise ImportRefused(
            f"{path} has no task.yml; a reference-kernels problem folder holds task.yml, "
            "reference.py and task.py"
        )
    try:
        raw = yaml.safe_load(spec_file.read_text())
    except yaml.YAMLError as exc:
        raise ImportRefused(f"task.yml is not valid YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(raw, dict):
        raise ImportRefused("task.yml must be a mapping of keys (files, lang, tests, benchmarks, ...)")
    for needed in ("reference.py", "task.py"):
        if not (path / needed).is_file():
            raise ImportRefused(f"{path} has no {needed}")
    lang = raw.get("lang", "py")
    if lang != "py":
        raise ImportRefused(
            f'task.yml says lang: {lang!r}; only Python problems (lang: "py") can be imported: '
            "this platform takes every submission as a Python file (CUDA goes through "
            "torch.utils.cpp_extension.load_inline)"
        )
    if raw.get("multi_gpu"):
        raise ImportRefused(
            "task.yml says multi_gpu: true; this platform judges on one device per job, so "
            "multi-GPU problems cannot be imported"
        )
    tests = _cases(raw, "tests")
    benchmarks = _cases(raw, "benchmarks")
    ranking_by = str(raw.get("ranking_by", "last"))  # GPU MODE's default criterion
    if ranking_by not in RANKINGS:
        raise ImportRefused(f"task.yml says ranking_by: {ranking_by!r}; choose one of {', '.join(RANKINGS)}")
    notes = []
    for entry in raw.get("files") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if name and name not in SUPPLIED | {"reference.py", "task.py"}:
            notes.append(f"files: {name} is not carried over (only reference.py and task.py are)")
    timeouts = [k for k in ("test_timeout", "benchmark_timeout", "ranked_timeout") if k in raw]
    if timeouts:
        notes.append(f"{', '.join(timeouts)}: this platform's own per-mode limits apply (docs/harness.md)")
    templates = {}
    for language, source in (raw.get("templates") or {}).items():
        file = (path / str(source)).resolve()
        if language not in TEMPLATE_NAMES:
            notes.append(f"templates: {language} is not a language GPU MODE names; left out")
        elif not file.is_file():
            notes.append(f"templates: {language}'s {source} is not there; left out")
        else:
            templates[language] = file
    return TaskFolder(
        path, str(raw.get("description") or ""), tests, benchmarks, ranking_by, templates, notes
    )


def _cases(raw: dict, key: str) -> list[dict[str, Any]]:
    rows = raw.get(key)
    if not isinstance(rows, list) or not rows:
        raise ImportRefused(f"task.yml has no {key}: it needs a list of cases, each with its seed")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("seed"), int):
            raise ImportRefused(f"task.yml's {key}[{i}] must be a mapping with an integer seed; got {row!r}")
        if not all(isinstance(v, (int, float, str, bool)) for v in row.values()):
            raise ImportRefused(
                f"task.yml's {key}[{i}] may hold only numbers, strings and booleans; got {row!r}"
            )
        out.append(dict(row))
    return out


@dataclass
class Imported:
    name: str
    path: Path
    cpu: bool  # whether the inputs can be made on a CPU, so that the CPU cases are offered
    notes: list[str]


def import_folder(source: Path, into: Path, name: str | None = None, *, replace: bool = False) -> Imported:
    """Write the problem folder `into/NAME` from the reference-kernels folder `source`.

    The reference is tried once on this machine's CPU (the first test case: its inputs, the reference's
    output and the check of that output against itself). Where that fails because the generator makes its
    tensors on CUDA, the problem is offered on GPUs only; any other failure refuses the import.
    """
    task = read_task(source)
    into = Path(into).resolve()
    if not into.is_dir():
        raise ImportRefused(
            f"{into} is not a folder; problems are written into an existing folder of problems"
        )
    name = name or re.sub(r"[^a-z0-9_]", "_", task.path.name.lower())
    if not NAME.match(name):
        raise ImportRefused(
            f"{name!r} cannot name a problem: use lower-case letters, digits and _ (48 at most), "
            "starting with a letter; --name picks one"
        )
    target = into / name
    if target.exists() and not replace:
        raise ImportRefused(
            f"{target} exists already; --replace writes over it (a changed problem is a new "
            "version: its old scores stay with the old version)"
        )
    with tempfile.TemporaryDirectory(prefix=".kb-import-", dir=into) as tmp:
        staging = Path(tmp) / name
        staging.mkdir()
        for f in ("reference.py", "task.py"):
            shutil.copyfile(task.path / f, staging / f)
        if (task.path / "utils.py").is_file():
            task.notes.append(
                "utils.py: this platform's own utils module (GPU MODE's helpers, written here) is "
                "used instead"
            )
        (staging / "statement.md").write_text(task.description)
        if task.templates:
            (staging / "templates").mkdir()
            for language, file in task.templates.items():
                shutil.copyfile(file, staging / "templates" / TEMPLATE_NAMES[language])
        title = task.description.strip().splitlines()[0].rstrip(".") if task.description.strip() else name
        (staging / "problem.py").write_text(_problem_py(task, name, title[:80], cpu=True))
        cpu, why = _try_on_cpu(staging, name, task.tests[0])
        if not cpu:
            (staging / "problem.py").write_text(_problem_py(task, name, title[:80], cpu=False))
            task.notes.append(
                f"the inputs cannot be made on a CPU ({why}): the problem is offered on GPUs only"
            )
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    return Imported(name, target, cpu, task.notes)


def _try_on_cpu(folder: Path, name: str, case: dict[str, Any]) -> tuple[bool, str]:
    """Whether the imported problem runs on a CPU, and why not; ImportRefused where it runs nowhere."""
    from runner.problem import Problem

    try:
        reference = Problem.at(folder, name).load_reference()
    except Exception as exc:
        raise ImportRefused(f"reference.py does not import: {type(exc).__name__}: {exc}") from None
    for needed in ("generate_input", "ref_kernel", "check_implementation"):
        if not callable(getattr(reference.module, needed, None)):
            raise ImportRefused(f"reference.py defines no function {needed}")
    params = {k: v for k, v in case.items() if k != "seed"}
    try:
        if reference.takes_device:
            data = reference.generate_input(**params, seed=int(case["seed"]), device="cpu")
        else:  # made where the generator likes: a CUDA tensor means a CUDA-only generator, even on a GPU host
            data = reference.module.generate_input(**params, seed=int(case["seed"]))
            where = sorted({t.device.type for t in _tensors(data)} - {"cpu"})
            if where:
                return False, f"generate_input makes {where[0]} tensors"
    except Exception as exc:
        text = " ".join(f"{type(exc).__name__}: {exc}".split())
        if "cuda" in text.lower() or "nvidia" in text.lower():
            return False, text[:200]
        raise ImportRefused(f"generate_input failed on the first test case {case}: {text}") from None
    try:
        ok, message = reference.check_implementation(data, reference.ref_kernel(data))
    except Exception as exc:
        raise ImportRefused(
            f"the reference failed on the first test case {case}: {type(exc).__name__}: {exc}"
        ) from None
    if not ok:
        raise ImportRefused(f"check_implementation rejects the reference's own output on {case}: {message}")
    return True, ""


def _problem_py(task: TaskFolder, name: str, title: str, *, cpu: bool) -> str:
    def cases(rows: list[dict[str, Any]]) -> str:
        listed = pprint.pformat(rows, width=100, sort_dicts=False)
        return f'{{\n    "cuda": {listed},\n    "cpu": {listed if cpu else "[]"},\n}}'

    gpu_only = "" if cpu else "  # its generator makes CUDA tensors: no CPU cases\n"
    return (
        f'"""{name}: imported from a reference-kernels folder by `manage.py import_problem` ({task.path.name}).\n\n'
        "Made from its task.yml; reference.py and task.py are its own, unchanged, and the judge calls them\n"
        "through runner.gpumode.Adapted. Edit freely: a changed file makes a new version.\n"
        '"""\n\n'
        f"TITLE = {title!r}\n"
        'TOLERANCE = "as the reference\'s check_implementation decides"\n'
        'REFERENCE_STYLE = "reference-kernels"\n'
        f"RANKING_BY = {task.ranking_by!r}\n"
        "# task.yml has one list of each; the CPU runs the same cases where the inputs can be made there.\n"
        f"{gpu_only}"
        f"TESTS = {cases(task.tests)}\n"
        f"BENCHMARKS = {cases(task.benchmarks)}\n"
        "# No counts(): task.yml states no FLOPs or bytes, so no physical floor applies and no rate is shown.\n"
    )


def _tensors(data: Any) -> list:
    import torch

    if isinstance(data, torch.Tensor):
        return [data]
    if isinstance(data, (tuple, list)):
        return [t for x in data for t in _tensors(x)]
    if isinstance(data, dict):
        return [t for x in data.values() for t in _tensors(x)]
    return []

"""Problems: one folder each (problem.py, reference.py, task.py, statement.md, templates/, solutions/),
found on a search path and loaded by path (they are not a package). docs/problems.md says what each file
holds and how to add one."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

PROBLEMS_DIR = Path(__file__).resolve().parent.parent / "problems"
# More folders of problems (os.pathsep between them), searched after problems/: where an operator keeps the
# problems imported with `manage.py import_problem --into`, mounted on every worker host too.
EXTRA_DIRS_ENV = "KERNELBOARD_PROBLEM_DIRS"
RANKINGS = ("geom", "mean", "last")  # how benchmark cases make a score: GPU MODE's three criteria


@dataclass(frozen=True)
class Case:
    """One parametrised case; `params` are generate_input's keyword arguments, without the seed."""

    problem: str
    kind: str  # "test" | "benchmark"
    params: dict[str, Any]
    seed: int

    @property
    def id(self) -> str:
        return f"{self.problem}[{'-'.join(f'{k}={v}' for k, v in self.params.items())}]"


DIFFICULTIES = ("easy", "medium", "hard")
TAG = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


@dataclass(frozen=True)
class About:
    """What the problem list shows of a problem beside its title: a difficulty ("" when not given) and tags."""

    difficulty: str = ""
    tags: tuple[str, ...] = ()


@dataclass
class Problem:
    name: str
    path: Path
    meta: ModuleType = field(repr=False)

    @property
    def title(self) -> str:
        return getattr(self.meta, "TITLE", self.name)

    @property
    def statement(self) -> str:
        f = self.path / "statement.md"
        return f.read_text() if f.exists() else ""

    @property
    def reference_source(self) -> str:
        return (self.path / "reference.py").read_text()

    @property
    def reference_as_submission(self) -> str:
        """The reference's own kernel as a submission (custom_kernel = ref_kernel): the baseline a problem's
        page shows per device kind, and what runner.bench times the judge with."""
        return self.reference_source + "\n\ncustom_kernel = ref_kernel\n"

    @property
    def task_source(self) -> str:
        return (self.path / "task.py").read_text()

    @property
    def utils_path(self) -> Path:
        """The `utils` module the contestant (and a GPU MODE reference) may import: the problem's own
        utils.py, else the shared one."""
        own = self.path / "utils.py"
        return own if own.exists() else Path(__file__).resolve().parent / "contestant" / "utils.py"

    @property
    def utils_source(self) -> str:
        return self.utils_path.read_text()

    @cached_property
    def about(self) -> About:
        """The problem's listing (`about.toml`: difficulty and tags): what the problem list and page show.
        Not part of the version: it decides no verdict, so a retagged problem keeps its scores."""
        f = self.path / "about.toml"
        data = tomllib.loads(f.read_text()) if f.exists() else {}
        difficulty = str(data.get("difficulty", ""))
        if difficulty and difficulty not in DIFFICULTIES:
            raise ValueError(f"{f}: difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
        tags = data.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and TAG.fullmatch(t) for t in tags):
            raise ValueError(f"{f}: tags must be a list of short lower-case words (a-z, 0-9, -)")
        return About(difficulty, tuple(tags))

    @property
    def deadline(self) -> str | None:
        return getattr(self.meta, "DEADLINE", None)

    @cached_property
    def version(self) -> str:
        """A hash of everything that decides a verdict; a changed problem gets a new version. The three
        files every problem has come first, then any other module beside them (an imported problem's
        original reference), so that adding this rule changed no existing problem's version."""
        h = hashlib.sha256()
        first = ("problem.py", "reference.py", "task.py")
        rest = sorted(p.name for p in self.path.glob("*.py") if p.name not in first)
        for name in (*first, *rest):
            h.update(name.encode() + b"\0" + (self.path / name).read_bytes() + b"\0")
        return h.hexdigest()[:16]

    @property
    def templates(self) -> dict[str, str]:
        d = self.path / "templates"
        return {p.name: p.read_text() for p in sorted(d.glob("*.py"))} if d.exists() else {}

    def cases(self, kind: str, device: str) -> list[Case]:
        """The test or benchmark cases for a device ("cpu" uses the small CPU shapes)."""
        table = {"test": self.meta.TESTS, "benchmark": self.meta.BENCHMARKS}[kind]
        rows = table["cpu" if device == "cpu" else "cuda"]
        out = []
        for row in rows:
            params = {k: v for k, v in row.items() if k != "seed"}
            out.append(Case(self.name, kind, params, int(row["seed"])))
        return out

    def counts(self, case: Case) -> tuple[float, float]:
        """(floating-point operations, bytes that must move) of one call, for the floor and FLOP/s; zeros
        where the problem does not say (an imported one): then no floor applies and no rate is shown."""
        counts = getattr(self.meta, "counts", None)
        return counts(**case.params) if counts else (0.0, 0.0)

    @property
    def ranking_by(self) -> str:
        """How the benchmark cases' medians make the score: "geom" (the geometric mean, every problem
        written here), "mean" or "last" (the last benchmark alone), as GPU MODE's task.yml may say."""
        return getattr(self.meta, "RANKING_BY", "geom")

    @property
    def writable_inputs(self) -> tuple[int, ...]:
        """Input tensors (by position among the data's tensors) that are output buffers the kernel may
        write; every other input must be left exactly as it was."""
        return tuple(getattr(self.meta, "WRITABLE_INPUTS", ()))

    @property
    def output_dtype(self) -> str:
        """ "exact": an output must have the reference's dtype; "floating": any floating dtype is accepted
        where the reference's is floating, and compared after widening to it (GPU MODE's trimul takes
        fp16 and bf16 outputs within its tolerance)."""
        return getattr(self.meta, "OUTPUT_DTYPE", "exact")

    def tolerance(self) -> str:
        return getattr(self.meta, "TOLERANCE", "")

    def load_reference(self) -> Any:
        """Import reference.py (the judge's side only: the contestant never sees it). A reference written
        for GPU MODE's harness (an imported problem) is put behind this judge's contract."""
        module = _import_with_task(self.path, "reference", self.utils_path)
        if getattr(self.meta, "REFERENCE_STYLE", "") == "reference-kernels":
            from runner.gpumode import Adapted

            return Adapted(module)
        return module

    @classmethod
    def at(cls, path: Path, name: str | None = None) -> Problem:
        """The problem in a folder, wherever it is (load_problem finds one by name)."""
        path = Path(path)
        name = name or path.name
        return cls(name=name, path=path, meta=_import_file(path / "problem.py", f"_problem_meta_{name}"))

    def solutions(self, group: str) -> list[Solution]:
        """The golden submissions of a group: correct, wrong or cheating."""
        return [Solution.read(p, group) for p in sorted((self.path / "solutions" / group).glob("*.py"))]


@dataclass(frozen=True)
class Solution:
    """A golden submission and what it must get. Its docstring says so in lines such as
    `expect: failed|flagged`, `message: <part of the reason>`, `threat: 5`, `scan: ctypes proc`, and
    `device: cuda` for one that runs on a GPU only (CUDA C++ built by load_inline)."""

    path: Path
    group: str
    expect: tuple[str, ...]
    message: str = ""
    threat: int | None = None
    scan: tuple[str, ...] = ()
    device: str = ""  # the one device it runs on; "": every device

    @classmethod
    def read(cls, path: Path, group: str) -> Solution:
        text = path.read_bytes().decode("utf-8", errors="replace")
        fields: dict[str, str] = {}
        for line in text.splitlines()[:40]:
            m = re.match(r"^(expect|message|threat|scan|device):\s*(.*?)\s*$", line)
            if m:
                fields[m.group(1)] = m.group(2)
        expect = tuple(fields.get("expect", "passed" if group == "correct" else "").split("|"))
        return cls(
            path=path,
            group=group,
            expect=tuple(e for e in expect if e),
            message=fields.get("message", ""),
            threat=int(fields["threat"]) if fields.get("threat") else None,
            scan=tuple(fields.get("scan", "").split()),
            device=fields.get("device", ""),
        )


def _import_file(path: Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _import_with_task(folder: Path, stem: str, utils: Path) -> ModuleType:
    """Import folder/stem.py with this problem's task.py importable as `task` and its utils as `utils`, as
    GPU MODE files expect (`from task import input_t`, `from utils import make_match_reference`).

    Problems all call these modules by the same names, so they are in sys.modules only while importing.
    """
    saved = {name: sys.modules.get(name) for name in ("task", "utils")}
    sys.modules["task"] = _import_file(folder / "task.py", f"_problem_task_{folder.name}")
    sys.modules["utils"] = _import_file(utils, f"_problem_utils_{folder.name}")
    try:
        return _import_file(folder / f"{stem}.py", f"_problem_{stem}_{folder.name}")
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def problem_dirs() -> list[Path]:
    """Where problems are looked for: problems/, then the folders named by KERNELBOARD_PROBLEM_DIRS."""
    extra = [Path(p).resolve() for p in os.environ.get(EXTRA_DIRS_ENV, "").split(os.pathsep) if p]
    return [PROBLEMS_DIR, *extra]


def _folders() -> dict[str, Path]:
    """Each problem's folder by name; the first folder of that name wins, as on a search path."""
    found: dict[str, Path] = {}
    for root in problem_dirs():
        if root.is_dir():
            for p in sorted(root.iterdir()):
                if (p / "problem.py").exists():
                    found.setdefault(p.name, p)
    return found


def list_problems() -> list[str]:
    return sorted(_folders())


def load_problem(name: str) -> Problem:
    path = _folders().get(name)
    if path is None:
        known = ", ".join(list_problems())
        raise KeyError(f"there is no problem called {name!r}; the problems are: {known}")
    return Problem.at(path, name)


def call_seed(run_seed: int, case_seed: int, call_index: int) -> int:
    """The seed of one call's inputs: every call gets fresh values, unknowable without the run seed."""
    digest = hashlib.blake2b(f"{run_seed}:{case_seed}:{call_index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1  # 63 bits: fits every generator's seed

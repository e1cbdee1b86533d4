"""Every problem's golden submissions, as the tests judge them.

- correct: the problem's templates/*.py and solutions/correct/*.py;
- wrong: its solutions/wrong/*.py;
- cheating: its own solutions/cheating/*.py (the cheats that depend on the problem's maths, such as the
  t11_* input-distribution shortcuts) and every generic cheat of tests/runner/cheats/, applied to the problem
  by appending it to the problem's honest solution (a submission reaches the sandbox as one file).

A problem's own wrong or cheating file may be a variant of its honest solution too: with the docstring line
`wraps: honest` it is judged appended to it, as the generic cheats are.

Each file's docstring says what it must get (`expect:`, `message:`, `threat:`, `scan:`; runner.problem.Solution
reads them). docs/problems.md describes the layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from runner.problem import PROBLEMS_DIR, Solution, load_problem
from tests.runner import attacks

CHEATS = Path(__file__).resolve().parent / "cheats"


@dataclass(frozen=True)
class Golden:
    """A golden submission of one problem: what to judge (`source`) and what it must get (`solution`)."""

    problem: str
    id: str  # "vectoradd/templates/pytorch.py", "vectoradd/cheats/t01_replay_buffer.py"
    solution: Solution
    source: str

    @property
    def template(self) -> bool:
        return self.id.split("/")[1] == "templates"

    def __getattr__(self, name):  # expect, message, threat, scan, path, group
        return getattr(self.solution, name)


def _own(problem: str, path: Path, group: str) -> Golden:
    """A file of the problem's folder; one whose docstring has the line `wraps: honest` is a variant of the
    honest solution, judged as wrap(problem, its text), so that the problem's honest code is written once."""
    rel = path.relative_to(PROBLEMS_DIR).as_posix()
    source = path.read_bytes().decode("utf-8", errors="surrogateescape")
    if re.search(r"^wraps: honest\s*$", "\n".join(source.splitlines()[:40]), re.MULTILINE):
        source = wrap(problem, source)
    return Golden(problem, rel, Solution.read(path, group), source)


def honest_path(problem: str) -> Path:
    """The honest solution the generic cheats and attacks wrap: the problem's first solutions/correct/pytorch*.py
    (a faster one, where the template is slow on a CPU), else its templates/pytorch.py."""
    path = load_problem(problem).path
    own = sorted((path / "solutions" / "correct").glob("pytorch*.py"))
    return own[0] if own else path / "templates" / "pytorch.py"


def honest(problem: str) -> str:
    return honest_path(problem).read_text()


def wrap(problem: str, cheat: str) -> str:
    """One submission: the honest solution, its custom_kernel renamed `_honest_kernel`, the helpers of
    cheats/_prelude.py, then `cheat`, which defines the cheating custom_kernel around it."""
    return honest(problem) + attacks.WRAP + "\n" + (CHEATS / "_prelude.py").read_text() + "\n\n" + cheat


def correct(problem: str, device: str = "cpu") -> list[Golden]:
    """The correct solutions that run on `device`: one marked `device: cuda` (CUDA C++) is a GPU's only."""
    path = load_problem(problem).path
    files = sorted((path / "templates").glob("*.py")) + sorted((path / "solutions" / "correct").glob("*.py"))
    solutions = [_own(problem, p, "correct") for p in files]
    return [s for s in solutions if s.device in ("", device)]


def wrong(problem: str) -> list[Golden]:
    return [
        _own(problem, p, "wrong")
        for p in sorted((load_problem(problem).path / "solutions" / "wrong").glob("*.py"))
    ]


def generic_cheats() -> list[Path]:
    """The generic cheats of every device (cheats/t*.py); cheats/g*.py are the GPU's (gpu_cheats)."""
    return sorted(p for p in CHEATS.glob("t*.py"))


def cheating(problem: str) -> list[Golden]:
    own = sorted((load_problem(problem).path / "solutions" / "cheating").glob("*.py"))
    out = [_own(problem, p, "cheating") for p in own]
    for path in generic_cheats():
        out.append(
            Golden(
                problem,
                f"{problem}/cheats/{path.name}",
                Solution.read(path, "cheating"),
                wrap(problem, path.read_text()),
            )
        )
    return out


def gpu_cheats(problem: str) -> list[Golden]:
    """The generic GPU cheats (cheats/g*.py, `device: cuda`), applied to the problem as the others are."""
    return [
        Golden(
            problem, f"{problem}/cheats/{p.name}", Solution.read(p, "cheating"), wrap(problem, p.read_text())
        )
        for p in sorted(CHEATS.glob("g*.py"))
    ]


GROUPS = {"correct": correct, "wrong": wrong, "cheating": cheating}

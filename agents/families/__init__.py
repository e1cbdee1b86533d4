"""Design spaces: per-problem template families whose points render into real submission source.

A `DesignSpace` names its choices (each a small set of values) and renders any assignment of them into the
source of a submission module that defines `custom_kernel(data)`. The offline policy learns a distribution
over these assignments; the rendered code is judged like anyone's.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Config = dict[str, Any]


@dataclass(frozen=True)
class Choice:
    name: str
    values: tuple[Any, ...]
    doc: str = ""


@dataclass
class DesignSpace:
    """The kernel programs of one problem on one kind of device."""

    problem: str
    device: str
    choices: list[Choice]
    seed: Config  # the point that reproduces the reference's algorithm; the archive's seed
    render_fn: Callable[[Config], str] = field(repr=False)

    def render(self, config: Config) -> str:
        """Source of the submission module for `config` (a value for every choice)."""
        full = self.complete(config)
        return self.render_fn(full)

    def complete(self, config: Config | None) -> Config:
        """`config` with every missing or unknown value replaced by the seed's."""
        config = config or {}
        out = {}
        for ch in self.choices:
            value = config.get(ch.name, self.seed[ch.name])
            out[ch.name] = value if value in ch.values else self.seed[ch.name]
        return out

    def size(self) -> int:
        total = 1
        for ch in self.choices:
            total *= len(ch.values)
        return total


def design_space(problem: str, device: str) -> DesignSpace:
    """The design space of `problem` on `device` ("cpu" or "cuda"): `space(device)` of
    agents/families/<problem>.py; KeyError if there is none."""
    known = sorted(p.stem for p in Path(__file__).resolve().parent.glob("*.py") if p.stem != "__init__")
    if problem not in known:
        raise KeyError(
            f"no design space for problem {problem!r}; the offline policy knows {', '.join(known)}"
        )
    return importlib.import_module(f"agents.families.{problem}").space(device)


class Source:
    """Builds indented source text line by line (the renderers' only tool)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def __call__(self, *lines: str) -> None:
        for line in lines:
            self.lines.append(("    " * self.depth + line) if line else "")

    def indent(self) -> None:
        self.depth += 1

    def dedent(self) -> None:
        self.depth -= 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

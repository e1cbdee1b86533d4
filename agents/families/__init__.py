"""Design spaces: per-problem template families whose points render into real submission source.

A `DesignSpace` names its choices (each a small set of values) and renders any assignment of them into the
source of a submission module that defines `custom_kernel(data)`. The offline policy learns a distribution
over these assignments; the rendered code is judged like anyone's.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
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

    @classmethod
    def of(
        cls,
        problem: str,
        device: str,
        choices: list[Choice],
        gpu_choices: list[Choice],
        seed: Config,
        render: Callable[[Config], str],
    ) -> DesignSpace:
        """A problem's space: its choices, and on a GPU its GPU-only ones too, seeded from `seed`."""
        chosen = list(choices) + (list(gpu_choices) if device == "cuda" else [])
        return cls(
            problem=problem,
            device=device,
            choices=chosen,
            seed={ch.name: seed[ch.name] for ch in chosen},
            render_fn=render,
        )

    def size(self) -> int:
        total = 1
        for ch in self.choices:
            total *= len(ch.values)
        return total


def design_space(problem: str, device: str) -> DesignSpace:
    """The design space of `problem` on `device` ("cpu" or "cuda"); KeyError if there is none.

    Found by convention: the module agents/families/<problem>.py, with a function `space(device)`."""
    if problem not in known_spaces():
        raise KeyError(
            f"no design space for problem {problem!r}; the offline policy knows "
            f"{', '.join(known_spaces())} (agents/families/<problem>.py adds one)"
        )
    return importlib.import_module(f"agents.families.{problem}").space(device)


def known_spaces() -> list[str]:
    """The problems with a design space: every module of this package."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


# The first lines of a rendered Triton kernel: its imports, then the decorator.
TRITON_HEADER = ("import triton", "import triton.language as tl", "", "", "@triton.jit")


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

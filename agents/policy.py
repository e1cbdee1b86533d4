"""What the loop needs from a policy: sample candidates from a start, learn from scored groups, save itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Context:
    """What a policy is told about one group: the problem and the start state it should improve."""

    problem: str
    device: str
    start_code: str
    start_runtime_s: float | None  # measured by the judge; None for an unmeasured seed
    start_meta: dict[str, Any] = field(default_factory=dict)
    reference_s: float | None = None  # the reference's runtime, for "x times faster" in prompts
    step: int = 0


@dataclass
class Candidate:
    """One rollout: the submission source plus what the policy needs to learn from it."""

    code: str
    meta: dict[str, Any] = field(default_factory=dict)  # shown and stored with the state (e.g. the program)
    trace: dict[str, Any] = field(default_factory=dict)  # the policy's own record of how it was sampled


@dataclass
class Group:
    """The candidates sampled from one start, with their rewards and advantages (one per candidate)."""

    context: Context
    candidates: list[Candidate]
    rewards: list[float]
    advantages: list[float]


class Policy(Protocol):
    """A policy of the TTT-Discover loop. `state_dict` must be JSON-serialisable (saved after every step)."""

    name: str

    def sample(self, context: Context, n: int) -> list[Candidate]:
        """n candidates that try to improve on the context's start state."""
        ...

    def update(self, groups: list[Group]) -> dict[str, float]:
        """One training step on a batch of groups (the entropic objective); returns metrics for the log."""
        ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...

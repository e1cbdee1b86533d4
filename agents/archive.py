"""The PUCT archive: which earlier kernels the next batch starts from.

Every state is a kernel that passed, with its reward R(s) (proportional to 1 / runtime). Selection scores

    score(s) = Q(s) + c * (R_max - R_min) * P(s) * sqrt(1 + T) / (1 + n(s)),   c = 1,

with P(s) = (|H| - rank(s)) / sum_s' (|H| - rank(s')) (rank 0 the best), Q(s) = m(s) if n(s) > 0 else R(s).
Expanding parent p with best child reward y sets m(p) = max(m(p), y), adds 1 to n of p and of every ancestor,
and adds 1 to T; a group whose rollouts all failed counts too, with y = 0. Of each expansion the best 2 new
children enter the archive (no code twice); the archive keeps at most 1000 states, dropping the lowest
rewards first, and never drops a seed. A batch takes the top-k states by score, never two from one lineage
(a state's ancestors and descendants).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

CAPACITY = 1000
CHILDREN_KEPT = 2
EXPLORATION = 1.0


def code_key(code: str) -> str:
    """Identity of a kernel's code for de-duplication: whitespace at line ends and blank lines ignored."""
    lines = [line.rstrip() for line in code.strip().splitlines()]
    return hashlib.sha256("\n".join(line for line in lines if line).encode()).hexdigest()


@dataclass
class State:
    """One kernel in the archive."""

    id: str
    code: str
    reward: float  # R(s)
    runtime_s: float | None  # the score the reward came from (geometric mean seconds)
    parent: str | None = None
    seed: bool = False
    step: int = -1  # the step that produced it; -1 for seeds
    n: int = 0  # visits: expansions of this state or of a descendant
    m: float | None = None  # best child reward seen when expanding it
    meta: dict[str, Any] = field(default_factory=dict)  # e.g. the offline policy's program and rewrites

    @property
    def q(self) -> float:
        return self.m if self.n > 0 and self.m is not None else self.reward


@dataclass
class Child:
    """One rollout of an expansion, as the archive sees it."""

    code: str
    reward: float  # 0 for a failure
    runtime_s: float | None
    passed: bool
    meta: dict[str, Any] = field(default_factory=dict)


class Archive:
    """States, their PUCT statistics and the rules that update them. Plain data; saved as JSON."""

    def __init__(
        self, capacity: int = CAPACITY, children_kept: int = CHILDREN_KEPT, c: float = EXPLORATION
    ) -> None:
        self.capacity = capacity
        self.children_kept = children_kept
        self.c = c
        self.states: dict[str, State] = {}
        self.T = 0
        self._next_id = 0
        self._keys: dict[str, str] = {}  # code_key -> state id

    # -- building ---------------------------------------------------------------------------------------
    def _new_id(self) -> str:
        self._next_id += 1
        return f"s{self._next_id - 1}"

    def add_seed(
        self, code: str, reward: float, runtime_s: float | None, meta: dict[str, Any] | None = None
    ) -> State | None:
        """Add a seed (a template or a current best entry); seeds are never evicted. None if a duplicate."""
        key = code_key(code)
        if key in self._keys:
            return None
        s = State(
            id=self._new_id(), code=code, reward=reward, runtime_s=runtime_s, seed=True, meta=meta or {}
        )
        self.states[s.id] = s
        self._keys[key] = s.id
        return s

    def update(self, parent_id: str, children: Iterable[Child], step: int = -1) -> list[State]:
        """Record one expansion of `parent_id` (failures included) and return the states it added."""
        children = list(children)
        parent = self.states.get(parent_id)
        y = max((ch.reward if ch.passed else 0.0 for ch in children), default=0.0)
        if parent is not None:
            parent.m = y if parent.m is None else max(parent.m, y)
        for ancestor in self.ancestors(parent_id, include_self=True):
            ancestor.n += 1
        self.T += 1

        added: list[State] = []
        seen: set[str] = set()
        for ch in sorted((c for c in children if c.passed), key=lambda c: -c.reward):
            if len(added) == self.children_kept:
                break
            key = code_key(ch.code)
            if key in self._keys or key in seen:
                continue
            seen.add(key)
            s = State(
                id=self._new_id(),
                code=ch.code,
                reward=ch.reward,
                runtime_s=ch.runtime_s,
                parent=parent_id,
                step=step,
                meta=dict(ch.meta),
            )
            self.states[s.id] = s
            self._keys[key] = s.id
            added.append(s)
        self._evict()
        return [s for s in added if s.id in self.states]

    def _evict(self) -> None:
        excess = len(self.states) - self.capacity
        if excess <= 0:
            return
        # Lowest reward first; among equals the newest goes (older states have more statistics).
        victims = sorted((s for s in self.states.values() if not s.seed), key=lambda s: (s.reward, -s.step))
        for s in victims[:excess]:
            del self.states[s.id]
            del self._keys[code_key(s.code)]

    # -- lineage -----------------------------------------------------------------------------------------
    def ancestors(self, state_id: str, include_self: bool = False) -> list[State]:
        """The state's chain of parents that are still in the archive (nearest first)."""
        out: list[State] = []
        s = self.states.get(state_id)
        if s is not None and include_self:
            out.append(s)
        seen = {state_id}
        while s is not None and s.parent is not None and s.parent not in seen:
            seen.add(s.parent)
            s = self.states.get(s.parent)
            if s is not None:
                out.append(s)
        return out

    def lineage(self, state_id: str) -> set[str]:
        """Ids of the state, its ancestors and its descendants."""
        ids = {state_id} | {a.id for a in self.ancestors(state_id)}
        children: dict[str, list[str]] = {}
        for s in self.states.values():
            if s.parent is not None:
                children.setdefault(s.parent, []).append(s.id)
        stack = [state_id]
        while stack:
            for child in children.get(stack.pop(), []):
                if child not in ids:
                    ids.add(child)
                    stack.append(child)
        return ids

    # -- selection ---------------------------------------------------------------------------------------
    def ranked(self) -> list[State]:
        """States best first (highest reward; ties by age)."""
        return sorted(self.states.values(), key=lambda s: (-s.reward, int(s.id[1:])))

    def scores(self) -> dict[str, float]:
        """PUCT score of every state."""
        ranked = self.ranked()
        if not ranked:
            return {}
        size = len(ranked)
        denominator = size * (size + 1) / 2  # sum over ranks r of (|H| - r)
        r_max, r_min = ranked[0].reward, ranked[-1].reward
        bonus = self.c * (r_max - r_min) * math.sqrt(1 + self.T)
        return {
            s.id: s.q + bonus * ((size - rank) / denominator) / (1 + s.n) for rank, s in enumerate(ranked)
        }

    def select(self, k: int) -> list[State]:
        """The top-k states by PUCT score, never two from one lineage (fewer if lineages run out)."""
        scores = self.scores()
        order = sorted(self.states.values(), key=lambda s: (-scores[s.id], int(s.id[1:])))
        chosen: list[State] = []
        blocked: set[str] = set()
        for s in order:
            if len(chosen) == k:
                break
            if s.id in blocked:
                continue
            chosen.append(s)
            blocked |= self.lineage(s.id)
        return chosen

    def best(self) -> State | None:
        ranked = self.ranked()
        return ranked[0] if ranked else None

    # -- persistence -------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "capacity": self.capacity,
            "children_kept": self.children_kept,
            "c": self.c,
            "T": self.T,
            "next_id": self._next_id,
            "states": [asdict(s) for s in self.states.values()],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Archive:
        a = cls(capacity=d["capacity"], children_kept=d["children_kept"], c=d["c"])
        a.T = d["T"]
        a._next_id = d["next_id"]
        for sd in d["states"]:
            s = State(**sd)
            a.states[s.id] = s
            a._keys[code_key(s.code)] = s.id
        return a

"""The offline policy: a learnable distribution over a problem's design space, no model weights needed.

For every choice of the design space it holds a table of logits, one row per value the start state has:
a child takes value v for choice i with probability softmax(logits_i[start's value])[v]. So the policy is
conditioned on the start state, like an LLM that edits the code it is shown. Initially each choice keeps
the start's value with probability `keep` and moves to any other value uniformly.

Training is the loop's: each decision of a sample is a "token" with advantage
A_n - lambda * (log pi - log pi_0) (agents.objective.penalised_advantages), and one Adam step per batch
ascends sum over decisions of that advantage times log pi. Rendering a sampled design gives real source.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from agents.families import Config, DesignSpace
from agents.objective import KL_PENALTY, penalised_advantages
from agents.policy import Candidate, Context, Group


class OfflinePolicy:
    """Softmax tables per design choice, conditioned on the start's value, trained at test time."""

    name = "offline"

    def __init__(
        self,
        space: DesignSpace,
        seed: int = 0,
        lr: float = 0.3,
        keep: float = 0.5,
        kl_penalty: float = KL_PENALTY,
        train: bool = True,
    ) -> None:
        self.space = space
        self.lr = lr
        self.kl_penalty = kl_penalty
        self.train = train
        self.generator = torch.Generator().manual_seed(seed)
        self.init = [self._initial(len(ch.values), keep) for ch in space.choices]
        self.logits = [t.clone() for t in self.init]
        # Adam's moments, kept by hand so that the whole state is plain lists in JSON.
        self.adam_m = [torch.zeros_like(t) for t in self.init]
        self.adam_v = [torch.zeros_like(t) for t in self.init]
        self.adam_t = 0

    @staticmethod
    def _initial(size: int, keep: float) -> torch.Tensor:
        if size == 1:
            return torch.zeros(1, 1, dtype=torch.float64)
        stay = math.log(keep * (size - 1) / (1.0 - keep))  # softmax gives `keep` to the diagonal
        return torch.eye(size, dtype=torch.float64) * stay

    def _index(self, config: Config) -> list[int]:
        full = self.space.complete(config)
        return [ch.values.index(full[ch.name]) for ch in self.space.choices]

    # -- sampling -----------------------------------------------------------------------------------------
    def sample(self, context: Context, n: int) -> list[Candidate]:
        start = self._index(context.start_meta.get("design", {}))
        out = []
        for _ in range(n):
            picks = []
            for i, row in enumerate(start):
                probs = torch.softmax(self.logits[i][row], dim=0)
                picks.append(int(torch.multinomial(probs, 1, generator=self.generator)))
            design = {ch.name: ch.values[k] for ch, k in zip(self.space.choices, picks, strict=True)}
            out.append(
                Candidate(
                    code=self.space.render(design),
                    meta={"design": design},
                    trace={"start": start, "picks": picks},
                )
            )
        return out

    def probabilities(self, start: Config | None = None) -> dict[str, dict[str, float]]:
        """The current distribution of each choice from `start` (the seed when None), for logs and tests."""
        row = self._index(start or self.space.seed)
        return {
            ch.name: {
                str(v): float(p)
                for v, p in zip(ch.values, torch.softmax(self.logits[i][row[i]], 0), strict=True)
            }
            for i, ch in enumerate(self.space.choices)
        }

    # -- training -----------------------------------------------------------------------------------------
    def _log_probs(self, tables: list[torch.Tensor], trace: dict[str, Any]) -> list[torch.Tensor]:
        return [
            torch.log_softmax(tables[i][row], dim=0)[pick]
            for i, (row, pick) in enumerate(zip(trace["start"], trace["picks"], strict=True))
        ]

    def update(self, groups: list[Group]) -> dict[str, float]:
        if not self.train:
            return {}
        params = [t.clone().requires_grad_(True) for t in self.logits]
        objective = torch.zeros((), dtype=torch.float64)
        samples = 0
        kl = 0.0
        for g in groups:
            for cand, adv in zip(g.candidates, g.advantages, strict=True):
                logp = self._log_probs(params, cand.trace)
                logp0 = [float(x) for x in self._log_probs(self.init, cand.trace)]
                weights = penalised_advantages(adv, [float(x.detach()) for x in logp], logp0, self.kl_penalty)
                objective = objective + sum(w * lp for w, lp in zip(weights, logp, strict=True))
                kl += sum(float(a.detach()) - b for a, b in zip(logp, logp0, strict=True))
                samples += 1
        if samples == 0:
            return {}
        loss = -objective / samples
        loss.backward()
        self.adam_t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        with torch.no_grad():
            for i, p in enumerate(params):
                grad = p.grad
                self.adam_m[i] = b1 * self.adam_m[i] + (1 - b1) * grad
                self.adam_v[i] = b2 * self.adam_v[i] + (1 - b2) * grad * grad
                m_hat = self.adam_m[i] / (1 - b1**self.adam_t)
                v_hat = self.adam_v[i] / (1 - b2**self.adam_t)
                self.logits[i] = self.logits[i] - self.lr * m_hat / (v_hat.sqrt() + eps)
        return {"loss": float(loss.detach()), "kl": kl / samples}

    # -- persistence --------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "choices": [ch.name for ch in self.space.choices],
            "lr": self.lr,
            "kl_penalty": self.kl_penalty,
            "train": self.train,
            "init": [t.tolist() for t in self.init],
            "logits": [t.tolist() for t in self.logits],
            "adam_m": [t.tolist() for t in self.adam_m],
            "adam_v": [t.tolist() for t in self.adam_v],
            "adam_t": self.adam_t,
            "rng": self.generator.get_state().tolist(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state["choices"] != [ch.name for ch in self.space.choices]:
            raise ValueError("the saved policy was trained on another design space")
        self.lr, self.kl_penalty, self.train = state["lr"], state["kl_penalty"], state["train"]

        def tensors(key: str) -> list[torch.Tensor]:
            return [torch.tensor(t, dtype=torch.float64) for t in state[key]]

        self.init, self.logits = tensors("init"), tensors("logits")
        self.adam_m, self.adam_v = tensors("adam_m"), tensors("adam_v")
        self.adam_t = state["adam_t"]
        self.generator.set_state(torch.tensor(state["rng"], dtype=torch.uint8))

"""The offline policy: a learnable distribution over chains of rewrites, no model weights needed.

A sample starts from the group's start program and makes a few decisions, each a "token": first how many
rewrites to apply (1 to `max_rewrites`), then each rewrite in turn, chosen among the rewrites that apply
to the program as it stands. Every decision is a softmax whose logits are a linear function of the current
state's features (one-hot of each step's attributes, agents.programs.Program.features: a logit is the mean
of one weight per feature present), so the policy is conditioned on the state it edits, like an LLM on the code it is shown; initially every choice is uniform.

Training is the loop's: each decision has advantage A_n - lambda * (log pi - log pi_0)
(agents.objective.penalised_advantages, pi_0 the initial policy), and one Adam step per batch ascends the
sum over decisions of that advantage times log pi.
"""

from __future__ import annotations

from typing import Any

import torch

from agents.objective import KL_PENALTY, penalised_advantages
from agents.policy import Candidate, Context, Group
from agents.programs import Program, Space

LENGTH, REWRITE = 0, 1  # the two weight matrices: how many rewrites, which rewrite


class OfflinePolicy:
    """Linear softmax policies over the number of rewrites and over the applicable rewrites."""

    name = "offline"

    def __init__(
        self,
        space: Space,
        seed: int = 0,
        lr: float = 0.2,
        kl_penalty: float = KL_PENALTY,
        train: bool = True,
        max_rewrites: int = 3,
    ) -> None:
        self.space = space
        self.lr = lr
        self.kl_penalty = kl_penalty
        self.train = train
        self.max_rewrites = max_rewrites
        self.generator = torch.Generator().manual_seed(seed)
        self.feature_index = {f: i for i, f in enumerate(space.features)}
        width = len(space.features) + 1  # the last column is a bias (a feature every state has)
        self.init = [
            torch.zeros(max_rewrites, width, dtype=torch.float64),
            torch.zeros(len(space.rewrites), width, dtype=torch.float64),
        ]
        self.weights = [t.clone() for t in self.init]
        # Adam's moments, kept by hand so that the whole state is plain lists in JSON.
        self.adam_m = [torch.zeros_like(t) for t in self.init]
        self.adam_v = [torch.zeros_like(t) for t in self.init]
        self.adam_t = 0

    def state_features(self, program: Program) -> list[int]:
        known = [self.feature_index[f] for f in program.features() if f in self.feature_index]
        return known + [len(self.feature_index)]

    @staticmethod
    def _logits(weights: torch.Tensor, features: list[int], options: list[int]) -> torch.Tensor:
        # the mean over the state's features, so that one Adam step moves a logit by about lr however many
        # features a state has
        return weights[options][:, features].mean(dim=1)

    def _draw(self, kind: int, features: list[int], options: list[int]) -> int:
        probs = torch.softmax(self._logits(self.weights[kind], features, options), dim=0)
        return int(torch.multinomial(probs, 1, generator=self.generator))

    # -- sampling -----------------------------------------------------------------------------------------
    def start_program(self, context: Context) -> Program:
        saved = context.start_meta.get("program")
        return Program.from_json(saved) if saved else self.space.seed

    def sample(self, context: Context, n: int) -> list[Candidate]:
        start = self.start_program(context)
        out = []
        for _ in range(n):
            program, decisions, names = start, [], []
            features = self.state_features(program)
            lengths = list(range(self.max_rewrites))
            k = self._draw(LENGTH, features, lengths)
            decisions.append((LENGTH, features, lengths, k))
            for _ in range(k + 1):
                options = self.space.applicable(program)
                if not options:
                    break
                features = self.state_features(program)
                pick = self._draw(REWRITE, features, options)
                decisions.append((REWRITE, features, options, pick))
                program = self.space.apply(options[pick], program)  # type: ignore[assignment]
                names.append(self.space.rewrites[options[pick]].name)
            out.append(
                Candidate(
                    code=self.space.render(program),
                    meta={"program": program.to_json(), "rewrites": names},
                    trace={"decisions": decisions},
                )
            )
        return out

    def probabilities(self, program: Program | None = None) -> dict[str, float]:
        """The distribution of the first rewrite from `program` (the seed when None), for logs and tests."""
        program = program or self.space.seed
        options = self.space.applicable(program)
        probs = torch.softmax(self._logits(self.weights[REWRITE], self.state_features(program), options), 0)
        return {self.space.rewrites[i].name: float(p) for i, p in zip(options, probs, strict=True)}

    # -- training -----------------------------------------------------------------------------------------
    def _log_probs(self, weights: list[torch.Tensor], trace: dict[str, Any]) -> list[torch.Tensor]:
        return [
            torch.log_softmax(self._logits(weights[kind], features, options), dim=0)[pick]
            for kind, features, options, pick in trace["decisions"]
        ]

    def update(self, groups: list[Group]) -> dict[str, float]:
        if not self.train:
            return {}
        params = [t.clone().requires_grad_(True) for t in self.weights]
        objective = torch.zeros((), dtype=torch.float64)
        samples = 0
        kl = 0.0
        for g in groups:
            for cand, adv in zip(g.candidates, g.advantages, strict=True):
                logp = self._log_probs(params, cand.trace)
                logp0 = [float(x) for x in self._log_probs(self.init, cand.trace)]
                now = [float(x.detach()) for x in logp]
                weights = penalised_advantages(adv, now, logp0, self.kl_penalty)
                objective = objective + sum(w * lp for w, lp in zip(weights, logp, strict=True))
                kl += sum(a - b for a, b in zip(now, logp0, strict=True))
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
                assert grad is not None
                self.adam_m[i] = b1 * self.adam_m[i] + (1 - b1) * grad
                self.adam_v[i] = b2 * self.adam_v[i] + (1 - b2) * grad * grad
                m_hat = self.adam_m[i] / (1 - b1**self.adam_t)
                v_hat = self.adam_v[i] / (1 - b2**self.adam_t)
                self.weights[i] = self.weights[i] - self.lr * m_hat / (v_hat.sqrt() + eps)
        return {"loss": float(loss.detach()), "kl": kl / samples}

    # -- persistence --------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rewrites": [r.name for r in self.space.rewrites],
            "features": list(self.space.features),
            "lr": self.lr,
            "kl_penalty": self.kl_penalty,
            "train": self.train,
            "max_rewrites": self.max_rewrites,
            "init": [t.tolist() for t in self.init],
            "weights": [t.tolist() for t in self.weights],
            "adam_m": [t.tolist() for t in self.adam_m],
            "adam_v": [t.tolist() for t in self.adam_v],
            "adam_t": self.adam_t,
            "rng": self.generator.get_state().tolist(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state["rewrites"] != [r.name for r in self.space.rewrites] or state["features"] != list(
            self.space.features
        ):
            raise ValueError("the saved policy was trained on another program space")
        self.lr, self.kl_penalty, self.train = state["lr"], state["kl_penalty"], state["train"]
        self.max_rewrites = state["max_rewrites"]

        def tensors(key: str) -> list[torch.Tensor]:
            return [torch.tensor(t, dtype=torch.float64) for t in state[key]]

        self.init, self.weights = tensors("init"), tensors("weights")
        self.adam_m, self.adam_v = tensors("adam_m"), tensors("adam_v")
        self.adam_t = state["adam_t"]
        self.generator.set_state(torch.tensor(state["rng"], dtype=torch.uint8))

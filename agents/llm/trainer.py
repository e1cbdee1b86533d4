"""Test-time LoRA training of the LLM policy with the entropic advantages (PEFT).

The loss of a batch is the advantage-weighted log-likelihood of the sampled completions: every completion
token t of sample n has weight A_n - lambda * (log pi(t) - log pi_0(t)), where pi_0 is the base model (the
adapter switched off), and the loss is minus the weighted sum of log pi over all tokens, divided by the token
count. One Adam step per batch, as in the paper (rank 32, lr 4e-5 there).
"""

from __future__ import annotations

import os
from typing import Any

from agents.objective import KL_PENALTY, penalised_advantages


class LoRATrainer:
    def __init__(
        self,
        model: Any,
        rank: int = 32,
        alpha: int | None = None,
        lr: float = 4e-5,
        kl_penalty: float = KL_PENALTY,
        target_modules: Any = "all-linear",
    ) -> None:
        import torch
        from peft import LoraConfig, get_peft_model

        config = LoraConfig(
            r=rank,
            lora_alpha=alpha or rank,
            lora_dropout=0.0,
            target_modules=target_modules,
            task_type="CAUSAL_LM",
        )
        self.model = get_peft_model(model, config)
        self.kl_penalty = kl_penalty
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    def token_log_probs(self, prompt: list[int], completion: list[int]) -> Any:
        """log pi of each completion token given the prompt and the tokens before it (with gradients)."""
        import torch

        ids = torch.tensor([prompt + completion])
        logits = self.model(input_ids=ids).logits[0, len(prompt) - 1 : -1].float()
        return torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(completion)[:, None])[:, 0]

    def update(self, samples: list[tuple[list[int], list[int], float]]) -> dict[str, float]:
        """One Adam step on (prompt ids, completion ids, advantage) samples; returns loss and KL."""
        import torch

        samples = [s for s in samples if s[1]]
        tokens = sum(len(c) for _, c, _ in samples)
        if not tokens:
            return {}
        self.model.train()
        self.optimizer.zero_grad()
        total, kl = 0.0, 0.0
        for prompt, completion, advantage in samples:
            with torch.no_grad(), self.model.disable_adapter():
                logp0 = self.token_log_probs(prompt, completion).tolist()
            logp = self.token_log_probs(prompt, completion)
            weights = torch.tensor(
                penalised_advantages(advantage, logp.detach().tolist(), logp0, self.kl_penalty)
            )
            loss = -(weights * logp).sum() / tokens
            loss.backward()  # one sample at a time: the batch's graph never has to fit in memory at once
            total += float(loss.detach())
            kl += float(logp.detach().sum()) - sum(logp0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return {"loss": total, "kl": kl / len(samples), "tokens": float(tokens)}

    def save(self, path: str) -> None:
        """The adapter (adapter_model.safetensors, adapter_config.json) and the optimizer's state."""
        import torch

        os.makedirs(path, exist_ok=True)
        self.model.save_pretrained(path)
        torch.save(self.optimizer.state_dict(), os.path.join(path, "optimizer.pt"))

    def load(self, path: str) -> None:
        import torch
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        set_peft_model_state_dict(self.model, load_file(os.path.join(path, "adapter_model.safetensors")))
        optimizer = os.path.join(path, "optimizer.pt")
        if os.path.exists(optimizer):
            self.optimizer.load_state_dict(torch.load(optimizer, weights_only=True))

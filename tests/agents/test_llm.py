"""The LLM policy end to end on CPU: a tiny randomly initialised Llama and a tokenizer built here.

No weights are downloaded. The candidates of a random model are gibberish, which the real judge would
reject with a reward of 0 for all; a group of equal rewards teaches nothing, so the judge is replaced here
by a verifier that scores text (stated where it is used). Everything else is the real path: prompts,
sampling with transformers, the entropic advantages, the PEFT LoRA step, saving and reloading the adapter.
"""

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from agents.llm import LLMPolicy, LocalSampler, LoRATrainer  # noqa: E402
from agents.llm.prompts import build_messages, extract_code  # noqa: E402
from agents.llm.samplers import prompt_ids  # noqa: E402
from agents.loop import Discovery, RunConfig  # noqa: E402
from agents.policy import Context  # noqa: E402
from agents.programs import program_space  # noqa: E402
from agents.verifier import Evaluation, reward_of  # noqa: E402


def tiny_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [
        "def custom_kernel(data):\n    x, mask, w, config = data\n    return torch.add(A, B, out=C)\n",
        "```python\nimport torch\n```\nYou are an expert kernel engineer. Write a faster version.",
    ]
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<unk>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    fast.pad_token = "</s>"
    return fast


def tiny_model(vocab):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
    )
    return LlamaForCausalLM(cfg)


class TextVerifier:
    """Stands in for the judge (see the module docstring): reward grows with the distinct characters."""

    def __init__(self):
        self.unit_s = None
        self.judged = 0

    def evaluate(self, codes, secret_seed):
        self.judged += len(codes)
        out = []
        for code in codes:
            score = 1.0 / (1 + len(set(code)))
            out.append(Evaluation("passed", "", score, reward_of(score, True, self.unit_s)))
        return out


def test_prompt_carries_problem_code_and_runtime():
    ctx = Context(
        problem="trimul",
        device="cpu",
        start_code="def custom_kernel(data): ...",
        start_runtime_s=0.0123,
        reference_s=0.0246,
    )
    text = build_messages(ctx, "Compute TriMul.")[1]["content"]
    assert (
        "trimul" in text and "def custom_kernel(data): ..." in text and "12.3 ms" in text and "2.00x" in text
    )
    assert extract_code("Here:\n```python\nimport torch\n```\nthanks") == "import torch\n"
    assert extract_code("no fences") == "no fences\n"


def test_one_whole_step_trains_and_reloads_the_adapter(tmp_path):
    tokenizer = tiny_tokenizer()
    model = tiny_model(len(tokenizer))
    trainer = LoRATrainer(model, rank=4, lr=1e-2)
    sampler = LocalSampler(trainer.model, tokenizer, max_new_tokens=12)
    policy = LLMPolicy(sampler, trainer, tokenizer, adapter_dir=str(tmp_path / "adapters"))
    space = program_space("vectoradd", "cpu")
    seeds = [(space.render(space.seed), {})]
    cfg = RunConfig(problem="vectoradd", steps=1, groups=1, rollouts=4, seed=0)
    run = Discovery(cfg, policy, TextVerifier(), seeds, out_dir=tmp_path / "run")

    run.start()
    ctx = run.context(run.archive.ranked()[0], 0)
    lora_before = {k: v.clone() for k, v in trainer.model.named_parameters() if "lora_B" in k}
    record = run.step()

    assert record.candidates == 4 and len(record.rewards[0]) == 4
    assert any(
        not torch.equal(v, lora_before[k]) for k, v in trainer.model.named_parameters() if "lora_B" in k
    )
    saved = json.loads((tmp_path / "run" / "policy.json").read_text())
    assert saved["version"] == 1 and (tmp_path / "adapters" / "step-1" / "adapter_model.safetensors").exists()

    # A fresh model with the saved adapter loaded (a resumed run) gives the same log-probabilities.
    model2 = tiny_model(len(tokenizer))
    trainer2 = LoRATrainer(model2, rank=4, lr=1e-2)
    policy2 = LLMPolicy(
        LocalSampler(trainer2.model, tokenizer), trainer2, tokenizer, adapter_dir=str(tmp_path / "adapters")
    )
    policy2.load_state_dict(saved)
    prompt = prompt_ids(tokenizer, build_messages(ctx))
    completion = tokenizer("def custom_kernel", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        a = trainer.token_log_probs(prompt, completion)
        b = trainer2.token_log_probs(prompt, completion)
    assert torch.allclose(a, b, atol=1e-5)


def test_update_raises_likelihood_of_the_best_sample():
    tokenizer = tiny_tokenizer()
    trainer = LoRATrainer(tiny_model(len(tokenizer)), rank=4, lr=3e-2)
    prompt = tokenizer("Write a faster version.")["input_ids"]
    good = tokenizer("torch.add(A, B, out=C)", add_special_tokens=False)["input_ids"]
    bad = tokenizer("x, mask, w", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        before = float(trainer.token_log_probs(prompt, good).sum())
    for _ in range(3):
        trainer.update([(prompt, good, 1.0), (prompt, bad, -1.0)])
    with torch.no_grad():
        after = float(trainer.token_log_probs(prompt, good).sum())
    assert after > before

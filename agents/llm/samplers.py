"""Where the LLM policy's completions come from: an OpenAI-compatible HTTP endpoint or a local model.

Both take chat messages and return n completions at the given temperature, and both can switch to a newly
trained LoRA adapter: the local sampler loads the adapter's weights into its model; the HTTP sampler asks a
vLLM-style server to load the adapter from a path it can read (POST /v1/load_lora_adapter) and then samples
from it by name.
"""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any, Protocol


class Sampler(Protocol):
    def complete(self, messages: list[dict[str, str]], n: int) -> list[str]: ...

    def load_adapter(self, path: str, name: str) -> None: ...


class HTTPSampler:
    """An OpenAI-compatible /v1/chat/completions endpoint, over plain HTTP (urllib)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        temperature: float = 1.0,
        max_tokens: int = 2048,
        timeout_s: float = 600.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.base_url + path, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            text = response.read().decode()
        return json.loads(text) if text.strip().startswith("{") else {"text": text}

    def complete(self, messages: list[dict[str, str]], n: int) -> list[str]:
        reply = self._post(
            "/v1/chat/completions",
            {
                "model": self.model,
                "messages": messages,
                "n": n,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            },
        )
        answers = [choice["message"]["content"] or "" for choice in reply.get("choices", [])]
        while len(answers) < n:  # servers that ignore n answer once per request
            answers += self.complete(messages, n - len(answers))
        return answers[:n]

    def load_adapter(self, path: str, name: str) -> None:
        self._post("/v1/load_lora_adapter", {"lora_name": name, "lora_path": path})
        self.model = name


class LocalSampler:
    """A transformers causal LM in this process (with its PEFT adapter, when the trainer added one)."""

    def __init__(
        self, model: Any, tokenizer: Any, temperature: float = 1.0, max_new_tokens: int = 512
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.temperature = temperature
        self.max_new_tokens = max_new_tokens

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        return prompt_ids(self.tokenizer, messages)

    def complete(self, messages: list[dict[str, str]], n: int) -> list[str]:
        import torch

        ids = torch.tensor([self.prompt_ids(messages)])
        self.model.eval()
        with torch.no_grad():
            out = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                do_sample=True,
                temperature=self.temperature,
                top_k=0,
                max_new_tokens=self.max_new_tokens,
                num_return_sequences=n,
                pad_token_id=self.tokenizer.pad_token_id
                if self.tokenizer.pad_token_id is not None
                else self.tokenizer.eos_token_id,
            )
        return [self.tokenizer.decode(seq[ids.shape[1] :], skip_special_tokens=True) for seq in out]

    def load_adapter(self, path: str, name: str) -> None:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        set_peft_model_state_dict(self.model, load_file(os.path.join(path, "adapter_model.safetensors")))


def prompt_ids(tokenizer: Any, messages: list[dict[str, str]]) -> list[int]:
    """Token ids of the prompt: the tokenizer's chat template when it has one, else a plain transcript."""
    if getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)
    text = "".join(f"<{m['role']}>\n{m['content']}\n" for m in messages) + "<assistant>\n"
    return tokenizer(text)["input_ids"]

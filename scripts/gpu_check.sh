#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and torch + triton installed (no Django needed): the GPU-marked tests
# and the fidelity benchmark, in well under 8 minutes. Prints figures for docs/benchmarks.md.
#   bash scripts/gpu_check.sh            (uses .venv/bin/python when present, else python3)
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>/dev/null
$PY -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__, torch.cuda.get_device_name())"
echo "== GPU tests"
timeout 240 $PY -m pytest -q -m gpu -p no:django -p no:cacheprovider tests/runner 2>&1 | tail -25
echo "== a correct Triton vectoradd in leaderboard mode on the GPU"
timeout 120 $PY -m runner run vectoradd problems/vectoradd/templates/triton.py --mode leaderboard --device cuda
echo "== fidelity (judge vs triton.testing.do_bench) and score spread"
timeout 200 $PY -m runner.bench fidelity --device cuda --runs 3 --case-budget 1.0

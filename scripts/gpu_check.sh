#!/usr/bin/env bash
# The GPU check, sized for one lease of the lent machine (one H100 or H200; python3 3.12 with torch 2.11 and
# triton 3.6, no Django, no network): every step with its own timeout, the whole in at most 8 minutes, the
# results as JSON in the folder given (an argument, else $GPU_CHECK_OUT, else ./gpu_check_results):
# gpu_check.json (each step: status, seconds, what it proves, its figures) and gpu_check.log (their output).
#   bash scripts/gpu_check.sh [RESULTS_DIR]              on the GPU machine
#   bash scripts/gpu_check.sh --dry-run [RESULTS_DIR]    anywhere: checks the plan, what travels, the imports
# Python packages the machine lacks travel as wheels in .whl/ (docs/harness.md, "The GPU check"); today the
# runner needs none. PYTHON overrides the interpreter (default: python3, the machine's own).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ "${1:-}" != "--dry-run" ] && compgen -G ".whl/*.whl" >/dev/null; then
    timeout 60 "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/gpu_check_site .whl/*.whl || { echo "the carried wheels did not install" >&2; exit 1; }
    export PYTHONPATH="$PYTHONPATH:/tmp/gpu_check_site"
fi
exec "$PY" scripts/gpu_check.py "$@"

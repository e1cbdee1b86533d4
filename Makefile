# The two commands of the README. Both set up .venv first (idempotent, fast when nothing changed): `run` only
# what serving needs, `check` and `test` also what only tests use (scripts/setup.sh says which).
PORT ?= 8000
# Test processes side by side (pytest-xdist): most of the suite waits on judges, workers, browsers and
# containers rather than the CPU, so two share a 2-core machine well (docs/benchmarks.md, the suite's time).
TEST_WORKERS ?= 2

.PHONY: run test check setup setup-test llm-server docker

# What serving needs: .venv with requirements.lock, the checkout installed editable, bubblewrap.
setup:
	@bash scripts/setup.sh

# That, and what only tests use: llama.cpp's llama-server and the SmolLM2 GGUF (the LLM policy's server
# tests; built from source on a CPU without AVX-VNNI, about 10 minutes, once), chromium (browser tests).
setup-test: setup
	@bash scripts/setup.sh test

# The local language-model server for the LLM policy (docs/agents.md): llama-server and the SmolLM2 GGUF.
llm-server: setup
	@bash scripts/setup.sh llm

run: setup
	.venv/bin/python manage.py serve --port $(PORT)

# The Docker engine and the runner image for the docker tests (scripts/docker.sh; as root it installs and
# starts what is missing). Where it cannot, those tests skip with the reason, except under CI, where they fail.
docker: setup
	@bash scripts/docker.sh setup || echo "make: no Docker engine or runner image here; the docker tests will skip"

# The fast tier for an edit-test loop (a few minutes): lint, format, types, and every test that starts no
# judge process. `make test` runs everything.
check: setup-test
	@bash scripts/services.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/python -m pytest -q -n $(TEST_WORKERS) -m "not judge"

test: setup-test docker
	@bash scripts/services.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/python -m pytest -q -n $(TEST_WORKERS)

# The two commands of the README. Both set up .venv first (idempotent, fast when nothing changed).
PORT ?= 8000

.PHONY: run test check setup docker

setup:
	@bash scripts/setup.sh

run: setup
	.venv/bin/python manage.py serve --port $(PORT)

# The Docker engine and the runner image for the docker tests (scripts/docker.sh; as root it installs and
# starts what is missing). Where it cannot, those tests skip with the reason, except under CI, where they fail.
docker: setup
	@bash scripts/docker.sh setup || echo "make: no Docker engine or runner image here; the docker tests will skip"

# The fast tier for an edit-test loop (a few minutes): lint, format, types, and every test that starts no
# judge process. `make test` runs everything.
check: setup
	@bash scripts/services.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/python -m pytest -q -m "not judge"

test: setup docker
	@bash scripts/services.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/python -m pytest -q

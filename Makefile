# The two commands of the README. Both set up .venv first (idempotent, fast when nothing changed).
PORT ?= 8000

.PHONY: run test setup

setup:
	@bash scripts/setup.sh

run: setup
	.venv/bin/python manage.py serve --port $(PORT)

test: setup
	@bash scripts/services.sh
	.venv/bin/ruff check .
	.venv/bin/python -m pytest -q

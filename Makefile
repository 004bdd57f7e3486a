# molx-agent — the README's two commands are `make demo` and `make test`.
SHELL := /bin/bash
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
PY ?= python3

.PHONY: demo test install uv lint typecheck bench clean

uv:
	@command -v uv >/dev/null 2>&1 || [ -x "$(HOME)/.local/bin/uv" ] || $(PY) -m pip install --user --quiet uv || $(PY) -m pip install --quiet uv

install: uv
	$(UV) sync --extra dev

demo: install
	$(UV) run molx-agent run --query "What is the molecular weight and logP of aspirin?"
	$(UV) run molx-agent run --query "Plan a synthesis of paracetamol"

test: install
	$(UV) run pytest -q

lint: install
	$(UV) run ruff check molx_agent tests

typecheck: install
	$(UV) run mypy molx_agent

bench: install
	$(UV) run python benchmarks/cli_latency.py

clean:
	rm -rf .pytest_cache .ruff_cache .mypy_cache outputs

# molx-agent — the README's two commands are `make demo` and `make test`.
SHELL := /bin/bash
PY ?= python3
# Resolved when a recipe runs (after the `uv` target may have installed it), not when make starts.
UV = $(shell command -v uv 2>/dev/null || { [ -x "$(HOME)/.local/bin/uv" ] && echo "$(HOME)/.local/bin/uv"; } || $(PY) -c "import shutil, sysconfig, os; print(shutil.which('uv', path=os.pathsep.join([sysconfig.get_path('scripts'), sysconfig.get_path('scripts', os.name + '_user')])) or 'uv')")

.PHONY: demo test install uv lint typecheck bench clean

# Installs uv when it is missing: pip --user first, then a system pip that is marked externally managed
# (PEP 668, e.g. Debian/Ubuntu Python), then plain pip.
uv:
	@command -v uv >/dev/null 2>&1 || [ -x "$(HOME)/.local/bin/uv" ] \
	  || $(PY) -m pip install --user --quiet uv \
	  || $(PY) -m pip install --user --quiet --break-system-packages uv \
	  || $(PY) -m pip install --quiet uv \
	  || { echo "could not install uv with pip; install it (see its documentation) and re-run" >&2; exit 1; }

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

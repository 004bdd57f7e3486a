# molx-agent — the README's two commands are `make demo` and `make test`.
SHELL := /bin/bash
PY ?= python3
# Resolved when a recipe runs (after the `uv` target may have installed it), not when make starts.
UV = $(shell command -v uv 2>/dev/null || { [ -x "$(HOME)/.local/bin/uv" ] && echo "$(HOME)/.local/bin/uv"; } || $(PY) -c "import shutil, sysconfig, os; print(shutil.which('uv', path=os.pathsep.join([sysconfig.get_path('scripts'), sysconfig.get_path('scripts', os.name + '_user')])) or 'uv')")

.PHONY: demo test install uv lint typecheck bench clean

# 1 inside a virtualenv (where `pip install --user` is an error), else 0.
IN_VENV = $(shell $(PY) -c 'import sys; print(int(sys.prefix != sys.base_prefix))' 2>/dev/null)
# uv ignores an active virtualenv for the project (it uses ./.venv); unsetting VIRTUAL_ENV spares its warning.
UV_RUN = env -u VIRTUAL_ENV $(UV)

# Installs uv when it is missing, quietly: inside a virtualenv with that virtualenv's pip; otherwise pip --user
# first, then a system pip that is marked externally managed (PEP 668, e.g. Debian/Ubuntu Python), then plain
# pip (only the last attempt may print pip's errors).
uv:
	@if command -v uv >/dev/null 2>&1 || [ -x "$(HOME)/.local/bin/uv" ]; then exit 0; fi; \
	if [ "$(IN_VENV)" = 1 ]; then \
	  $(PY) -m pip install --quiet --disable-pip-version-check uv && exit 0; \
	else \
	  $(PY) -m pip install --user --quiet --disable-pip-version-check uv 2>/dev/null \
	  || $(PY) -m pip install --user --quiet --disable-pip-version-check --break-system-packages uv 2>/dev/null \
	  || $(PY) -m pip install --quiet --disable-pip-version-check uv && exit 0; \
	fi; \
	echo "could not install uv with pip; install it (see its documentation) and re-run" >&2; exit 1

install: uv
	$(UV_RUN) sync --extra dev --extra studio --extra bench

demo: install
	$(UV_RUN) run molx-agent run --query "What is the molecular weight and logP of aspirin?"
	$(UV_RUN) run molx-agent run --query "Plan a synthesis of paracetamol"

test: install
	$(UV_RUN) run pytest -q

lint: install
	$(UV_RUN) run ruff check molx_agent tests

typecheck: install
	$(UV_RUN) run mypy molx_agent

bench: install
	$(UV_RUN) run python benchmarks/cli_latency.py

clean:
	rm -rf .pytest_cache .ruff_cache .mypy_cache outputs

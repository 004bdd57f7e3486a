"""Shared fixtures, named by content."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.llm_stub import llm_stub  # noqa: F401 - the local OpenAI-compatible stub server fixture

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    """Every test writes under its own tmp dir and never talks to a real LLM."""
    monkeypatch.setenv("MOLX_HOME", str(tmp_path / "molx_home"))
    monkeypatch.setenv("MOLX_OUTPUT_DIR", str(tmp_path / "outputs"))
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "false")
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MOLX_LLM_PROVIDER", "MCP_ENABLED", "MOLX_RETRO_MODE",
                "MOLX_LLM_STRUCTURED_OUTPUT", "MOLX_LLM_MAX_RETRIES", "MOLX_LLM_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    from molx_agent.config import reset_settings_cache

    reset_settings_cache()
    yield
    reset_settings_cache()


@pytest.fixture
def aspirin() -> str:
    return "CC(=O)Oc1ccccc1C(=O)O"


@pytest.fixture
def paracetamol() -> str:
    return "CC(=O)Nc1ccc(O)cc1"


@pytest.fixture(scope="session")
def repo_script() -> Callable[[str], ModuleType]:
    """Loads a repository script (``benchmarks/*.py``, ``scripts/*.py``) as a module, by path from the repo root."""

    def load(relative: str) -> ModuleType:
        path = REPO_ROOT / relative
        spec = importlib.util.spec_from_file_location(f"repo_script_{path.parent.name}_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder (benchmark data); tests that need it skip when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data not available")
    return SHARED_DATA


def chromium_path() -> str | None:
    import shutil

    return os.environ.get("MOLX_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")

"""chem/, retro/, sar/ and interfaces/ must not import LangChain or LangGraph (DESIGN.md, Layers)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "molx_agent"
FORBIDDEN = ("langchain", "langgraph", "langsmith", "langchain_core", "langchain_openai")


@pytest.mark.parametrize("layer", ["chem", "retro", "sar", "interfaces"])
def test_layer_source_has_no_langchain_imports(layer):
    offenders = []
    for path in (PKG / layer).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.relative_to(PKG)}: {name}")
    assert not offenders, offenders


@pytest.mark.parametrize("layer", ["chem", "retro", "sar", "interfaces"])
def test_importing_layer_loads_no_langchain(layer):
    code = (
        f"import importlib, sys, pkgutil\n"
        f"import molx_agent.{layer} as pkg\n"
        f"for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        f"    importlib.import_module(m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        f"print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", out.stdout


@pytest.mark.parametrize("layer", ["chem", "retro", "sar", "interfaces", "agents", "tools"])
def test_library_code_never_prints(layer):
    offenders = []
    for path in (PKG / layer).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert not offenders, offenders

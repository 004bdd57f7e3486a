"""The web server is a top layer: nothing below it (agents, tools, interfaces, retro, sar, chem) imports
molx_agent.server or FastAPI, and importing the agent does not load them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "molx_agent"


def test_no_lower_layer_imports_the_server():
    offenders = []
    for layer in ("agents", "tools", "interfaces", "retro", "sar", "chem"):
        for path in (PKG / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
                offenders += [f"{path.relative_to(PKG)}: {n}" for n in names
                              if n.startswith(("molx_agent.server", "fastapi", "uvicorn", "starlette"))]
    assert not offenders, offenders


def test_importing_the_agent_and_the_cli_loads_no_web_framework():
    code = ("import sys, molx_agent.agents.molx, molx_agent.cli.main\n"
            "print([m for m in sys.modules if m.split('.')[0] in ('fastapi', 'uvicorn', 'starlette')"
            " or m.startswith('molx_agent.server')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

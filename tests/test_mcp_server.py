"""``molx-agent mcp-server``: the skills and route search as MCP tools, reached with langchain-mcp-adapters."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time

import pytest

from molx_agent.mcp_server import tool_names

SKILLS = {
    "analyze_molecule",
    "analyze_scaffold",
    "analyze_selectivity",
    "break_bond",
    "check_availability",
    "decide_strategy",
    "get_global_strategy",
    "map_atoms",
    "plan_ring_strategy",
    "propose_disconnection",
    "render_report",
    "repair_reaction",
    "validate_reaction",
}


def _text(result) -> str:
    """The text of a LangChain tool call result (a string or a list of content blocks)."""
    if isinstance(result, str):
        return result
    if isinstance(result, tuple):
        result = result[0]
    if isinstance(result, list):
        return "".join(b["text"] if isinstance(b, dict) else getattr(b, "text", str(b)) for b in result)
    return str(result)


def test_tool_names():
    assert set(tool_names()) == SKILLS | {"search_routes"}


def test_in_process_server_lists_schemas():
    from molx_agent.mcp_server import build_server

    async def main():
        tools = {t.name: t for t in await build_server().list_tools()}
        assert set(tools) == SKILLS | {"search_routes"}
        assert tools["break_bond"].inputSchema["required"] == ["smiles", "atom1_idx", "atom2_idx"]
        assert "description" in tools["analyze_molecule"].inputSchema["properties"]["smiles"]

    asyncio.run(main())


def test_http_serves_on_loopback_only(monkeypatch):
    """`mcp-server --http PORT` binds 127.0.0.1 (never all interfaces)."""
    from molx_agent import mcp_server

    assert mcp_server.build_server(port=8765).settings.host == "127.0.0.1"
    seen = {}

    class FakeServer:
        def __init__(self, host, port):
            seen.update(host=host, port=port)

        def run(self, transport):
            seen["transport"] = transport

    monkeypatch.setattr(
        mcp_server, "build_server", lambda host="127.0.0.1", port=8000, engine=None: FakeServer(host, port)
    )
    from typer.testing import CliRunner

    from molx_agent.cli.main import app

    res = CliRunner().invoke(app, ["mcp-server", "--http", "8765"])
    assert res.exit_code == 0, res.output
    assert seen == {"host": "127.0.0.1", "port": 8765, "transport": "streamable-http"}


def test_stdio_server_with_langchain_mcp_adapters(aspirin):
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient(
        {
            "molx": {
                "command": sys.executable,
                "args": ["-m", "molx_agent.cli.main", "mcp-server"],
                "transport": "stdio",
            }
        }
    )

    async def main():
        tools = {t.name: t for t in await client.get_tools()}
        assert SKILLS <= set(tools)
        out = json.loads(_text(await tools["analyze_molecule"].ainvoke({"smiles": aspirin})))
        bad = json.loads(_text(await tools["analyze_molecule"].ainvoke({"smiles": "C1CC"})))
        return out, bad

    out, bad = asyncio.run(asyncio.wait_for(main(), timeout=120))
    assert out["success"] is True, out
    assert out["data"]["molecule_info"]["canonical_smiles"] == aspirin
    assert out["data"]["molecule_info"]["atom_bond_map"]["strategic_bonds"]
    assert bad["success"] is False and bad["error_code"] == "invalid_smiles"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_server_search_routes(paracetamol):
    from langchain_mcp_adapters.client import MultiServerMCPClient

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "molx_agent.cli.main", "mcp-server", "--http", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None:
                pytest.fail(proc.stderr.read().decode())
            time.sleep(0.3)
        client = MultiServerMCPClient(
            {"molx": {"url": f"http://127.0.0.1:{port}/mcp", "transport": "streamable_http"}}
        )

        async def main():
            tools = {t.name: t for t in await client.get_tools()}
            return json.loads(
                _text(
                    await tools["search_routes"].ainvoke(
                        {"target_smiles": paracetamol, "time_limit": 20, "n_routes": 1}
                    )
                )
            )

        out = asyncio.run(asyncio.wait_for(main(), timeout=120))
        assert out["success"] is True, out
        assert out["data"]["solved"] is True
        assert out["data"]["routes"] and out["data"]["route_texts"][0].startswith(paracetamol)
    finally:
        proc.terminate()
        proc.wait(timeout=20)

"""MCP client: config validation, loading the example FastMCP server over stdio, failures as warnings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from molx_agent.agents.modules.mcp import MCPToolLoader, connection_for, load_mcp_config, parse_mcp_config
from molx_agent.config import get_settings
from molx_agent.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "example_mcp_server.py"


def test_shipped_config_is_valid_and_disabled():
    servers = load_mcp_config(REPO / "config" / "mcp_servers.json")
    assert servers["chemistry"]["transport"] == "stdio" and servers["search"]["transport"] == "streamable_http"
    assert not any(s.get("enabled", True) for s in servers.values())


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"servers": {"x": "python"}},
        {"servers": {"x": {"transport": "carrier-pigeon", "command": "a"}}},
        {"servers": {"x": {"transport": "stdio"}}},
        {"servers": {"x": {"transport": "http"}}},
        {"servers": {"x": {"command": "a", "allowed_tools": "all"}}},
    ],
)
def test_invalid_configs_are_config_errors(doc):
    with pytest.raises(ConfigError):
        parse_mcp_config(doc)


def test_malformed_json_file(tmp_path):
    bad = tmp_path / "mcp.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_mcp_config(bad)
    assert "malformed JSON" in str(info.value)


def test_connection_uses_current_interpreter_for_python():
    conn = connection_for({"transport": "stdio", "command": "python", "args": ["s.py"]})
    assert conn == {"transport": "stdio", "command": sys.executable, "args": ["s.py"]}
    assert connection_for({"transport": "streamable_http", "url": "http://h/mcp"})["transport"] == "streamable_http"


def test_enabled_without_config_file_warns(tmp_path):
    from molx_agent.agents.molx import MolxAgent

    settings = get_settings(mcp_enabled=True, mcp_servers_config=tmp_path / "none.json")
    agent = MolxAgent(llm=None, settings=settings)
    assert any("does not exist" in w for w in agent.warnings)
    assert "180.16" in agent.invoke("MW of aspirin")["final_answer"]


def test_example_server_tools_called_through_the_agent_and_bad_server_is_a_warning(tmp_path):
    from molx_agent.agents.modules.tools import get_registry
    from molx_agent.agents.molx import MolxAgent

    config = {
        "servers": {
            "chemistry": {"command": "python", "args": [str(EXAMPLE)], "allowed_tools": ["ring_count"]},
            "broken": {"command": str(tmp_path / "no-such-server"), "allowed_tools": ["*"]},
        }
    }
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    agent = MolxAgent(llm=None, settings=get_settings(mcp_enabled=True, mcp_servers_config=path))
    assert any("'broken'" in w and "skipped" in w for w in agent.warnings)
    rows = {r["name"]: r for r in agent.registry.list_tools()}
    assert rows["ring_count"]["category"] == "mcp" and rows["ring_count"]["source"] == "mcp:chemistry"
    assert "heavy_atom_count" not in rows  # not on the allow-list
    # the MCP tools belong to this agent: the shared registry and the next agent never see them
    assert "ring_count" not in {r["name"] for r in get_registry().list_tools()}
    other = MolxAgent(llm=None, settings=get_settings())
    assert "ring_count" not in other.registry.get_tool_names() and "molecular_properties" in rows
    state = agent.invoke("use ring_count on c1ccccc1C1CC1")
    task = next(t for t in state["tasks"].values() if t["type"] == "tool_agent")
    result = state["results"][task["id"]]
    assert task["status"] == "done"
    call = result["tool_calls"][0]
    assert call["tool"] == "ring_count" and call["args"] == {"smiles": "c1ccccc1C1CC1"}
    assert '"rings": 2' in json.dumps(call["output"]).replace('\\"', '"').replace("\\n", "")
    assert any(e.get("code") == "warning" and "broken" in e["message"] for e in state["errors"])


def test_loader_async_api(tmp_path):
    import asyncio

    loader = MCPToolLoader(config={"servers": {"c": {"command": "python", "args": [str(EXAMPLE)],
                                                     "allowed_tools": ["*"]}}})
    tools = asyncio.run(loader.aget_mcp_tools())
    tool = next(t for t in tools if t.name == "heavy_atom_count")
    out = asyncio.run(tool.ainvoke({"smiles": "CCO"}))
    assert "heavy_atoms" in str(out) and "3" in str(out)


def test_http_transport_with_the_example_server(tmp_path):
    import socket
    import subprocess
    import time

    from molx_agent.agents.modules.tools import get_registry

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(EXAMPLE), "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        loader = MCPToolLoader(config={"servers": {"web": {"transport": "http", "url": f"http://127.0.0.1:{port}/mcp",
                                                           "allowed_tools": ["heavy_atom_count"]}}})
        added = loader.load_into(get_registry())
        assert added == ["heavy_atom_count"], loader.warnings
        out = get_registry().get_tool("heavy_atom_count").invoke({"smiles": "CC(=O)Oc1ccccc1C(=O)O"})
        assert "13" in str(out)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_mcp_tool_clashing_with_a_builtin_is_skipped_with_a_warning():
    from langchain_core.tools import StructuredTool

    from molx_agent.agents.modules.tools import ToolCategory, get_registry

    registry = get_registry()
    builtin = StructuredTool.from_function(lambda smiles: "builtin", name="ring_count", description="builtin rings")
    registry.register(builtin, ToolCategory.RDKIT)
    loader = MCPToolLoader(config={"servers": {"chemistry": {"command": "python", "args": [str(EXAMPLE)],
                                                             "allowed_tools": ["ring_count", "heavy_atom_count"]}}})
    added = loader.load_into(registry)
    assert added == ["heavy_atom_count"]
    assert registry.get_tool("ring_count") is builtin
    assert any("clash" in w and "ring_count" in w and "mcp:chemistry" in w for w in loader.warnings)

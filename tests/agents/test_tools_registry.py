"""ToolRegistry: loaders, filtering, clashes, LLM injection; the RDKit tool adapters."""

from __future__ import annotations

import json

from langchain_core.tools import StructuredTool

from molx_agent.agents.modules.tools import DEFAULT_LOADERS, ToolCategory, ToolRegistry, get_registry
from molx_agent.tools import get_all_tools, get_tool_names


def _tool(name: str) -> StructuredTool:
    return StructuredTool.from_function(lambda smiles: smiles, name=name, description=f"{name} tool")


def test_singleton_and_default_loaders():
    assert ToolRegistry() is get_registry()
    assert DEFAULT_LOADERS["rdkit"] == "molx_agent.tools.rdkit_tools:register_tools"
    names = get_tool_names()
    assert {"molecular_properties", "canonicalize_smiles", "convert_molecule", "name_to_smiles",
            "functional_groups"} <= set(names)
    assert {t.name for t in get_all_tools(category="converter")} >= {"canonicalize_smiles", "convert_molecule"}


def test_missing_loader_module_is_skipped_and_broken_one_warns():
    reg = get_registry()
    reg.add_loader("report", "molx_agent.tools.not_written_yet:register_tools")
    reg.add_loader("standardize", "molx_agent.tools.rdkit_tools:no_such_function")
    assert "molecular_properties" in reg.get_tool_names()
    assert any("standardize" in w for w in reg.warnings)
    assert not any("report" in w for w in reg.warnings)


def test_allowed_agents_filter_and_name_clash_warning():
    reg = get_registry()
    reg.register(_tool("only_cleaner"), ToolCategory.EXTRACTOR, allowed_agents=["data_cleaner"])
    assert "only_cleaner" in reg.get_tool_names(agent="data_cleaner")
    assert "only_cleaner" not in reg.get_tool_names(agent="tool_agent")
    assert reg.register(_tool("only_cleaner"), ToolCategory.MCP, source="mcp:x") is False
    assert any("clash" in w and "only_cleaner" in w for w in reg.warnings)
    row = next(r for r in reg.list_tools() if r["name"] == "only_cleaner")
    assert row == {**row, "category": "extractor", "allowed_agents": ["data_cleaner"], "source": "builtin"}


def test_inject_llm_reaches_tools_that_need_it():
    class NeedsLLM(StructuredTool):
        llm: object = None

    tool = NeedsLLM.from_function(lambda text: text, name="column_guesser", description="guess columns")
    reg = get_registry()
    reg.register(tool, ToolCategory.EXTRACTOR, requires_llm=True)
    sentinel = object()
    reg.inject_llm(sentinel)
    assert tool.llm is sentinel
    late = NeedsLLM.from_function(lambda text: text, name="late_tool", description="registered later")
    reg.register(late, ToolCategory.EXTRACTOR, requires_llm=True)
    assert late.llm is sentinel


def test_rdkit_tools_return_json_and_errors(aspirin):
    reg = get_registry()
    props = json.loads(reg.get_tool("molecular_properties").invoke({"smiles": aspirin}))
    assert props["molecular_weight"] == 180.16
    bad = json.loads(reg.get_tool("molecular_properties").invoke({"smiles": "C1CC"}))
    assert bad["error"]["code"] == "invalid_smiles"
    key = json.loads(reg.get_tool("convert_molecule").invoke({"smiles": aspirin, "to": "inchikey"}))
    assert key["value"] == "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"
    assert json.loads(reg.get_tool("convert_molecule").invoke({"smiles": aspirin, "to": "png"}))["error"]["code"] == "unknown_format"
    assert json.loads(reg.get_tool("name_to_smiles").invoke({"name": "布洛芬"}))["name"] == "ibuprofen"
    assert json.loads(reg.get_tool("name_to_smiles").invoke({"name": "zzz"}))["error"]["code"] == "unknown_name"
    groups = json.loads(reg.get_tool("functional_groups").invoke({"smiles": aspirin}))["functional_groups"]
    assert {"carboxylic_acid", "ester"} <= {g["name"] for g in groups}
    assert json.loads(reg.get_tool("canonicalize_smiles").invoke({"smiles": "OC(=O)c1ccccc1OC(C)=O"}))[
        "canonical_smiles"] == aspirin


def test_converter_tools_serve_the_tool_agent_only():
    reg = get_registry()
    converters = {"canonicalize_smiles", "convert_molecule", "name_to_smiles"}
    assert converters <= set(reg.get_tool_names(agent="tool_agent"))
    for worker in ("data_cleaner", "sar", "reporter", "analysis"):
        assert not converters & set(reg.get_tool_names(agent=worker)), worker
    assert "validate_sar_data" in reg.get_tool_names(agent="sar")


def test_a_scoped_registry_keeps_its_own_tools_and_llm():
    class NeedsLLM(StructuredTool):
        llm: object = None

    shared = get_registry()
    tool = NeedsLLM.from_function(lambda text: text, name="column_guesser", description="guess columns")
    shared.register(tool, ToolCategory.EXTRACTOR, requires_llm=True)
    mine, yours = shared.scoped(), shared.scoped()
    assert mine.register_mcp_tools([_tool("remote_tool")], server="lab") == ["remote_tool"]
    assert "remote_tool" in mine.get_tool_names() and "molecular_properties" in mine.get_tool_names()
    assert "remote_tool" not in shared.get_tool_names() and "remote_tool" not in yours.get_tool_names()
    sentinel = object()
    mine.inject_llm(sentinel)
    assert mine.get_tool("column_guesser").llm is sentinel
    assert tool.llm is None and yours.get_tool("column_guesser").llm is None  # the shared tool keeps no agent's LLM
    assert mine.register(_tool("molecular_properties"), ToolCategory.MCP, source="mcp:lab") is False  # clash


def test_the_agent_injects_its_llm_into_its_own_tools(scripted_llm):
    from molx_agent.agents.molx import MolxAgent

    llm = scripted_llm([])
    agent = MolxAgent(llm=llm, tools=[])
    injected = agent.registry.get_tool("extract_from_csv").llm
    assert injected.llm is llm  # this agent's model, seen through the one client's timeout/backoff policy
    assert type(injected).__name__ == "GuardedLLM"
    assert get_registry().get_tool("extract_from_csv").llm is None


def test_tool_output_dir_is_sanitised(tmp_path):
    from molx_agent.tools import get_tool_output_dir, safe_dir_name

    assert safe_dir_name("../../etc") == "etc" and safe_dir_name("my tool/x") == "my_tool_x"
    assert safe_dir_name("") == "tool" and "/" not in safe_dir_name("a/../../b")
    out = get_tool_output_dir("../../escape")
    assert out.is_dir() and out.resolve().is_relative_to((tmp_path / "outputs").resolve())


def test_the_agents_skill_tools_use_its_engine(toy_engine):
    import json as _json

    from molx_agent.agents.molx import MolxAgent

    agent = MolxAgent(llm=None, engine=toy_engine, tools=None)
    tool = agent.registry.get_tool("search_routes") or next(
        t for t in agent.registry.get_tools(category="retro") if getattr(t, "engine", None) is not None)
    assert tool.engine is toy_engine
    shared = get_registry().get_tool(tool.name)
    assert shared is not tool and shared.engine is None  # the shared registry keeps the default engine
    assert _json.loads(agent.registry.get_tool("molecular_properties").invoke({"smiles": "CCO"}))["heavy_atoms"] == 3

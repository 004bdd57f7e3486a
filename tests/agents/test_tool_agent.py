"""ToolAgent: deterministic rules policy and an LLM (scripted, with bind_tools) through the ToolNode loop."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import StructuredTool

from molx_agent.agents.tool_agent import ToolAgent, choose_tool, ensure_sync_tool, fill_tool_args
from molx_agent.errors import ValidationError


def _task(**inputs):
    return {"id": "t1", "type": "tool_agent", "status": "pending", "depends_on": [],
            "inputs": {"query": "", "smiles": [], "names": [], **inputs}}


def _run(agent, task, language="en"):
    return agent.run({"tasks": {"t1": task}, "current_task_id": "t1", "language": language})


def test_rules_mode_calls_the_named_tool(aspirin):
    update = _run(ToolAgent(), _task(query="use molecular_properties", smiles=[aspirin], tool="molecular_properties"))
    result = update["results"]["t1"]
    assert update["tasks"]["t1"]["status"] == "done"
    assert result["tool_calls"][0]["tool"] == "molecular_properties"
    assert result["tool_calls"][0]["args"] == {"smiles": aspirin}
    assert result["tool_calls"][0]["output"]["molecular_weight"] == 180.16
    assert "180.16" in result["summary"]


def test_rules_choice_by_mention_and_keywords():
    tools = [ensure_sync_tool(t) for t in ToolAgent()._tools()]
    assert choose_tool(tools, {"query": "please run convert_molecule"}).name == "convert_molecule"
    assert choose_tool(tools, {"query": "which functional groups are present"}).name == "functional_groups"
    with pytest.raises(ValidationError):
        choose_tool(tools, {"tool": "nope"})
    with pytest.raises(ValidationError) as info:
        fill_tool_args(next(t for t in tools if t.name == "molecular_properties"), {"query": "x"})
    assert info.value.code == "tool_args_missing"


def test_tool_failure_marks_task_failed():
    def boom(smiles: str) -> str:
        raise RuntimeError("kaput")

    tool = StructuredTool.from_function(boom, name="boom", description="always fails")
    update = _run(ToolAgent(tools=[tool]), _task(smiles=["CCO"], tool="boom"))
    assert update["tasks"]["t1"]["status"] == "failed" and "kaput" in update["tasks"]["t1"]["error"]


def test_async_only_tool_gets_sync_twin():
    async def ring(smiles: str) -> str:
        return f"rings of {smiles}"

    tool = StructuredTool.from_function(coroutine=ring, name="ring_async", description="async tool")
    update = _run(ToolAgent(tools=[tool]), _task(smiles=["C1CC1"], tool="ring_async"))
    assert update["results"]["t1"]["tool_calls"][0]["output"] == "rings of C1CC1"


def test_llm_mode_uses_bind_tools_and_tool_node(scripted_llm, aspirin):
    def script(messages):
        if not any(getattr(m, "type", "") == "tool" for m in messages):
            return AIMessage(content="", tool_calls=[{"name": "molecular_properties", "args": {"smiles": aspirin},
                                                      "id": "call_1", "type": "tool_call"}])
        return AIMessage(content="Aspirin weighs 180.16 g/mol.")

    llm = scripted_llm(script)
    update = _run(ToolAgent(llm=llm), _task(query="weight of aspirin?"))
    result = update["results"]["t1"]
    assert {t.name for t in llm.bound_tools} >= {"molecular_properties"}
    assert result["tool_calls"][0]["output"]["molecular_weight"] == 180.16
    assert result["summary"] == "Aspirin weighs 180.16 g/mol."


def test_planner_adds_tool_agent_when_a_tool_is_named():
    from molx_agent.agents.molx import MolxAgent

    state = MolxAgent(llm=None).invoke("use the canonicalize_smiles tool on OC(=O)c1ccccc1OC(C)=O")
    types = [t["type"] for t in state["tasks"].values()]
    assert types == ["analysis", "tool_agent"]
    assert "CC(=O)Oc1ccccc1C(=O)O" in state["results"]["t2"]["summary"]

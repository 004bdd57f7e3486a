"""The whole agent with the real ``ChatOpenAI`` against the local stub server: every LLM call of a run (classifier,
planner, guided decisions, reflection, final summary), tool calls, conversation history and failures."""

from __future__ import annotations

import json

from molx_agent.agents.modules.llm import get_llm, llm_failure
from molx_agent.agents.molx import MolxAgent
from molx_agent.agents.tool_agent import ToolAgent
from molx_agent.retro.route import RetroGraph
from tests.agents.conftest import PARACETAMOL, make_toy_engine
from tests.llm_stub import error, last_user, structured, stub_settings, system_prompt, text, tool_call

ANHYDRIDE_RXN = f"CC(=O)OC(C)=O.Nc1ccc(O)cc1>>{PARACETAMOL}"


def chemist_endpoint(summary: str):
    """Realistic replies per prompt (what a capable chat model answers), structured as the client asked."""

    def reply(body):
        system = system_prompt(body)
        if "You classify requests" in system:
            return structured({"intent": "retrosynthesis", "confidence": 0.93,
                               "reasoning": ["the user asks for a synthesis route of a given SMILES"]})
        if "You plan a task DAG" in system:
            return structured({"tasks": [
                {"id": "t1", "type": "analysis", "description": "analyse the target", "depends_on": []},
                {"id": "t2", "type": "disconnection", "description": "guided route", "depends_on": ["t1"]},
                {"id": "t3", "type": "validation", "description": "judge the route", "depends_on": ["t2"]},
                {"id": "t4", "type": "reporter", "description": "write the report", "depends_on": ["t2", "t3"]}]})
        if "steering a step-by-step retrosynthesis" in system:
            d = json.loads(last_user(body))
            if d["decision_type"] == "disconnection_decision":
                return structured({"action": "custom_reaction", "params": {"reaction_smiles": ANHYDRIDE_RXN},
                                   "reasoning": "acetylate 4-aminophenol with acetic anhydride"})
            return structured({"action": "use_default", "reasoning": "the rule default is right here"})
        if "You review the outcome" in system:
            return structured({"success": True, "should_replan": False, "issues": [], "summary": "Route found."})
        if "You write the final answer" in system:
            return structured({"summary": summary})
        return error(400, f"unexpected prompt: {system[:80]}")

    return reply


def _agent(server, tmp_path, **overrides):
    settings = stub_settings(server, output_dir=tmp_path / "out", **overrides)
    return MolxAgent(settings=settings, engine=make_toy_engine(tmp_path), load_mcp=False)


def test_full_run_every_llm_call_through_the_real_client(llm_stub, tmp_path):
    summary = "Paracetamol is made in one step by acetylating the aminophenol with acetic anhydride."
    server = llm_stub(chemist_endpoint(summary))
    agent = _agent(server, tmp_path)
    state = agent.invoke(f"Plan a synthesis of {PARACETAMOL}", options={"retro_mode": "guided"})
    assert state["intent"] == "retrosynthesis" and state["intent_confidence"] == 0.93
    assert state["plan_history"][0]["source"] == "llm"
    res = state["results"]["t2"]
    leaves = sorted(n.smiles for n in RetroGraph.from_dict(res["route_graph"]).leaves())
    assert "CC(=O)OC(C)=O" in leaves and res["guided"]["decided_by"] == "llm"
    assert state["final_answer"].startswith(summary)
    assert not [e for e in state["errors"] if e.get("code") == "warning"]
    kinds = [system_prompt(r).split("\n")[0][:30] for r in server.requests]
    assert all("response_format" in r for r in server.requests)  # every call asked for structured output
    assert len(kinds) >= 8 and llm_failure(agent.llm) is None


def test_ungrounded_summary_number_is_rejected_for_the_rules_answer(llm_stub, tmp_path, caplog):
    server = llm_stub(chemist_endpoint("Paracetamol is made in 3 steps with 97.5 % yield."))
    agent = _agent(server, tmp_path)
    with caplog.at_level("WARNING"):
        state = agent.invoke(f"Plan a synthesis of {PARACETAMOL}", options={"retro_mode": "guided"})
    assert "97.5" not in state["final_answer"] and state["final_answer"].startswith("[Intent: retrosynthesis]")
    assert "appear in no result" in caplog.text


def test_follow_up_turn_sends_the_conversation_to_classifier_and_planner(llm_stub, tmp_path):
    def reply(body):
        system = system_prompt(body)
        if "You classify requests" in system:
            return structured({"intent": "molecule_query", "confidence": 0.8, "reasoning": ["property question"]})
        if "You plan a task DAG" in system:
            return structured({"tasks": [{"id": "t1", "type": "analysis", "description": "properties",
                                          "depends_on": []}]})
        if "You review the outcome" in system:
            return structured({"success": True, "should_replan": False, "issues": [], "summary": "ok"})
        return text("no summary")  # not JSON: the rules answer stands

    server = llm_stub(reply)
    agent = MolxAgent(settings=stub_settings(server), load_mcp=False)
    first = agent.invoke("What is the molecular weight of aspirin?")
    second = agent.invoke("And its logP?", state=first)
    asked = [r for r in server.requests if "You classify requests" in system_prompt(r)]
    planned = [r for r in server.requests if "You plan a task DAG" in system_prompt(r)]
    assert len(asked) == 2 and len(planned) == 2
    roles = [m["role"] for m in asked[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]  # the earlier turn, then the follow-up
    assert "molecular weight of aspirin" in asked[1]["messages"][1]["content"]
    assert "180.16" in asked[1]["messages"][2]["content"]
    assert [m["role"] for m in planned[1]["messages"]] == roles
    assert "logp" in second["final_answer"].lower() or "LogP" in second["final_answer"]


def test_tool_agent_tool_calls_through_the_real_client(llm_stub, aspirin):
    server = llm_stub([tool_call("molecular_properties", {"smiles": aspirin}),
                       text("Aspirin weighs 180.16 g/mol.")])
    llm = get_llm(stub_settings(server))
    task = {"id": "t1", "type": "tool_agent", "status": "pending", "depends_on": [],
            "inputs": {"query": "weight of aspirin?", "smiles": [], "names": []}}
    update = ToolAgent(llm=llm).run({"tasks": {"t1": task}, "current_task_id": "t1", "language": "en"})
    result = update["results"]["t1"]
    assert result["tool_calls"][0]["output"]["molecular_weight"] == 180.16
    assert result["summary"] == "Aspirin weighs 180.16 g/mol."
    assert any(t["function"]["name"] == "molecular_properties" for t in server.requests[0]["tools"])
    assert server.requests[1]["messages"][-1]["role"] == "tool"


def test_tool_agent_endpoint_down_mid_loop_finishes_with_rules(llm_stub, aspirin):
    server = llm_stub([error(500)])
    llm = get_llm(stub_settings(server))
    task = {"id": "t1", "type": "tool_agent", "status": "pending", "depends_on": [],
            "inputs": {"query": "use molecular_properties", "smiles": [aspirin], "names": [],
                       "tool": "molecular_properties"}}
    update = ToolAgent(llm=llm).run({"tasks": {"t1": task}, "current_task_id": "t1", "language": "en"})
    assert update["tasks"]["t1"]["status"] == "done"
    assert update["results"]["t1"]["tool_calls"][0]["output"]["molecular_weight"] == 180.16
    assert len(server.requests) == 1 and "500" in llm_failure(llm)


def test_llm_down_at_start_falls_back_to_rules_with_a_warning(unused_local_url, tmp_path):
    from molx_agent.config import get_settings

    agent = MolxAgent(settings=get_settings(openai_base_url=unused_local_url, llm_provider="auto"), load_mcp=False,
                      engine=make_toy_engine(tmp_path))
    state = agent.invoke(f"Plan a synthesis of {PARACETAMOL}", options={"retro_mode": "guided"})
    assert agent.llm is None and state["results"]["t2"]["guided"]["decided_by"] == "rules"
    assert any("rules mode" in e["message"] for e in state["errors"] if e.get("code") == "warning")

"""The real ``ChatOpenAI`` against the local stub server (tests/llm_stub.py): guided decisions, failures, timeouts."""

from __future__ import annotations

import json

import pytest

from molx_agent.agents.disconnection import DisconnectionAgent
from molx_agent.agents.modules.llm import get_llm, llm_failure
from molx_agent.retro.route import RetroGraph
from tests.agents.conftest import PARACETAMOL, make_toy_engine
from tests.llm_stub import error, forced_tool, last_user, slow, structured, stub_settings, text

ANHYDRIDE_RXN = f"CC(=O)OC(C)=O.Nc1ccc(O)cc1>>{PARACETAMOL}"


def _state():
    task = {"id": "t1", "type": "disconnection", "status": "pending", "depends_on": [],
            "inputs": {"smiles": [PARACETAMOL], "names": ["paracetamol"], "options": {}}}
    return {"current_task_id": "t1", "tasks": {"t1": task}, "results": {}, "language": "en",
            "options": {"retro_mode": "guided"}}


def _decision(body):
    return json.loads(last_user(body))


def _run(server, tmp_path, **overrides):
    llm = get_llm(stub_settings(server, **overrides))
    update = DisconnectionAgent(llm=llm, engine=make_toy_engine(tmp_path)).run(_state())
    assert update["tasks"]["t1"]["status"] == "done", update
    res = update["results"]["t1"]
    dis = next(d for d in res["guided"]["decisions"] if d["decision_type"] == "disconnection_decision")
    leaves = sorted(n.smiles for n in RetroGraph.from_dict(res["route_graph"]).leaves())
    return llm, res, dis, leaves


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
def test_guided_decision_picks_a_bond_through_the_real_client(llm_stub, tmp_path, method):
    """The stub chemist breaks the aryl C-N bond (atoms 3-4), not the rule default's amide bond (1-3)."""

    def chemist(body):
        d = _decision(body)
        if d["decision_type"] == "disconnection_decision" and d["context"]["molecule_smiles"] == PARACETAMOL:
            return structured({"action": "select_bond", "params": {"atom1_idx": 3, "atom2_idx": 4},
                               "reasoning": "Buchwald-Hartwig amination of acetamide on 4-halophenol"})
        return structured({"action": "use_default", "reasoning": f"rules are fine at {d['decision_type']}"})

    server = llm_stub(chemist)
    llm, res, dis, leaves = _run(server, tmp_path, llm_structured_output=method)
    assert dis["action"] == "select_bond" and dis["params"] == {"atom1_idx": 3, "atom2_idx": 4}
    assert dis["decided_by"] == "llm" and not dis["fallback"] and "Buchwald" in dis["reasoning_summary"]
    graph = RetroGraph.from_dict(res["route_graph"])
    first = next(r for r in graph.reaction_nodes if graph.molecule_nodes[r.product_node].smiles == PARACETAMOL)
    precursors = sorted(graph.molecule_nodes[m].smiles for m in first.reactant_nodes)
    assert "CC(N)=O" in precursors, precursors  # acetamide: the C(aryl)-N bond was broken, as the LLM chose
    assert "CC(=O)O" not in leaves
    requests = [r for r in server.requests if "steering a step-by-step retrosynthesis" in str(r["messages"][0])]
    assert len(requests) >= 4
    if method == "json_schema":
        assert requests[0]["response_format"]["json_schema"]["name"] == "DecisionReply"
    else:
        assert forced_tool(requests[0]) == "DecisionReply"
    assert llm_failure(llm) is None


def test_guided_custom_reaction_from_the_model_proposal(llm_stub, tmp_path):
    def chemist(body):
        d = _decision(body)
        if d["decision_type"] == "disconnection_decision":
            assert d["context"]["model_proposals"][0]["reaction_smiles"] == ANHYDRIDE_RXN
            return structured({"action": "custom_reaction", "params": {"reaction_smiles": ANHYDRIDE_RXN},
                               "reasoning": "acetic anhydride, the industrial route"})
        return structured({"action": "use_default"})

    _, res, dis, leaves = _run(llm_stub(chemist), tmp_path)
    assert dis["action"] == "custom_reaction" and "CC(=O)OC(C)=O" in leaves and res["solved"]


@pytest.mark.parametrize("bad", [
    text('{"action": "select_bond", "params": {"atom1_idx": 3,'),  # malformed JSON
    structured({"action": "select_bond", "params": {"atom1_idx": 0, "atom2_idx": 7}}),  # atoms not bonded
])
def test_guided_malformed_or_invalid_reply_falls_back(llm_stub, tmp_path, bad):
    def chemist(body):
        d = _decision(body)
        return bad if d["decision_type"] == "disconnection_decision" else structured({"action": "use_default"})

    llm, res, dis, leaves = _run(llm_stub(chemist), tmp_path)
    assert dis["fallback"] and dis["action"].startswith("use_default")
    assert leaves == ["CC(=O)O", "Nc1ccc(O)cc1"] and res["warnings"]
    assert llm_failure(llm) is None  # a bad answer is not an endpoint failure


def test_guided_http_500_falls_back_and_backs_off(llm_stub, tmp_path):
    server = llm_stub([structured({"action": "use_default"}), error(500), error(500)])
    llm, res, dis, leaves = _run(server, tmp_path)
    assert dis["fallback"] and res["solved"] and leaves == ["CC(=O)O", "Nc1ccc(O)cc1"]
    assert len(server.requests) == 2  # strategy answered; the 500 at the disconnection; then no more calls
    assert "500" in llm_failure(llm)
    assert res["guided"]["n_fallbacks"] == 3  # disconnection, validation, recursion: rules, with the reason


def test_guided_slow_reply_honours_the_timeout(llm_stub, tmp_path):
    server = llm_stub([slow(structured({"action": "use_default"}), 20)])
    llm, res, dis, _ = _run(server, tmp_path, llm_timeout=0.5)
    assert len(server.requests) == 1 and "Timeout" in llm_failure(llm)
    assert res["solved"] and all(d["fallback"] for d in res["guided"]["decisions"])

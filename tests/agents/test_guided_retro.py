"""Guided retrosynthesis: the disconnection worker drives the seed-000 pipeline (rules, LLM, chemist via interrupt)."""

from __future__ import annotations

import json

import pytest

from molx_agent.agents.disconnection import DisconnectionAgent
from molx_agent.agents.guided import decision_payload, search_options
from molx_agent.agents.modules import llm as llm_module
from molx_agent.retro.route import RetroGraph
from tests.agents.conftest import PARACETAMOL, make_toy_engine, scripted

ANHYDRIDE = "CC(=O)OC(C)=O"
ANHYDRIDE_RXN = f"{ANHYDRIDE}.Nc1ccc(O)cc1>>{PARACETAMOL}"


@pytest.fixture(autouse=True)
def _fresh_backoff():
    llm_module._failed_at.clear()
    yield
    llm_module._failed_at.clear()


def _state(options=None, run_options=None):
    task = {"id": "t1", "type": "disconnection", "status": "pending", "depends_on": [],
            "inputs": {"smiles": [PARACETAMOL], "names": ["paracetamol"], "options": dict(options or {})}}
    return {"current_task_id": "t1", "tasks": {"t1": task}, "results": {}, "language": "en",
            "options": dict(run_options or {})}


def _leaves(res):
    graph = RetroGraph.from_dict(res["route_graph"])
    return sorted(n.smiles for n in graph.leaves()), graph


def test_guided_rules_mode_runs_the_pipeline_on_use_default(tmp_path):
    engine = make_toy_engine(tmp_path)
    update = DisconnectionAgent(engine=engine).run(_state(run_options={"retro_mode": "guided"}))
    assert update["tasks"]["t1"]["status"] == "done", update
    res = update["results"]["t1"]
    assert res["strategy"] == "guided" and res["solved"] is True
    leaves, graph = _leaves(res)
    assert leaves == ["CC(=O)O", "Nc1ccc(O)cc1"]  # the rule default: the strategic amide bond
    guided = res["guided"]
    assert guided["decided_by"] == "rules" and guided["n_fallbacks"] == 0
    assert [d["decision_type"] for d in guided["decisions"]] == [
        "strategy_selection", "disconnection_decision", "validation_judgment", "recursion_decision"]
    assert all(d["action"].startswith("use_default") for d in guided["decisions"])
    assert graph.metadata["decisions"] == guided["decisions"]
    assert guided["search_routes"] == 0  # nobody would see the search's routes: not searched
    md = open(guided["report_paths"]["md"], encoding="utf-8").read()
    assert "use_default → select_bond" in md


def _decision_llm(choice_for_disconnection, calls):
    """A scripted LLM taking guided decisions: a given reply at the disconnection, use_default elsewhere."""

    def reply(messages):
        system = str(messages[0].content)
        user = json.loads(str(messages[-1].content))
        calls.append(user)
        assert "guided" in system and "steering a step-by-step retrosynthesis" in system
        if user["decision_type"] == "disconnection_decision":
            return choice_for_disconnection(user)
        return json.dumps({"action": "use_default", "reasoning": f"fine at {user['decision_type']}"})

    return scripted(reply)


def test_guided_llm_decision_picks_the_disconnection_and_the_route_follows(tmp_path):
    engine = make_toy_engine(tmp_path)
    calls = []

    def choose(user):
        proposals = user["context"]["model_proposals"]
        assert proposals[0]["reaction_smiles"] == ANHYDRIDE_RXN  # the engine's proposal is among the options
        assert user["search_options"][0]["reaction_smiles"].endswith(PARACETAMOL)  # and the search's best route
        return json.dumps({"action": "custom_reaction", "params": {"reaction_smiles": ANHYDRIDE_RXN},
                           "reasoning": "acetic anhydride acetylates the aniline selectively"})

    llm = _decision_llm(choose, calls)
    update = DisconnectionAgent(llm=llm, engine=engine).run(_state(run_options={"retro_mode": "guided"}))
    res = update["results"]["t1"]
    leaves, _ = _leaves(res)
    assert ANHYDRIDE in leaves and "CC(=O)O" not in leaves  # the route uses the LLM's disconnection
    dis = next(d for d in res["guided"]["decisions"] if d["decision_type"] == "disconnection_decision")
    assert dis["action"] == "custom_reaction" and dis["decided_by"] == "llm" and not dis["fallback"]
    assert "anhydride" in dis["reasoning_summary"]
    assert res["guided"]["search_routes"] >= 1


def test_guided_llm_select_bond_and_exploration_within_budget(tmp_path):
    engine = make_toy_engine(tmp_path)
    calls = []

    def choose(user):
        if not user["explorations"]:
            return json.dumps({"explore": {"tool": "check_availability",
                                           "params": {"smiles_list": ["Nc1ccc(O)cc1"]}},
                               "reasoning": "is the aminophenol sold?"})
        assert user["explorations"][0]["tool"] == "check_availability"
        bond = user["context"]["atom_bond_map"]["strategic_bonds"][0]["atoms"]
        return json.dumps({"action": "select_bond", "params": {"atom1_idx": bond[0], "atom2_idx": bond[1]},
                           "reasoning": "amide bond; the amine is in stock"})

    update = DisconnectionAgent(llm=_decision_llm(choose, calls), engine=engine).run(
        _state(run_options={"retro_mode": "guided"}))
    res = update["results"]["t1"]
    dis = next(d for d in res["guided"]["decisions"] if d["decision_type"] == "disconnection_decision")
    assert dis["action"] == "select_bond" and dis["params"] == {"atom1_idx": 1, "atom2_idx": 3}
    assert res["solved"]


@pytest.mark.parametrize("bad", [
    "not json at all",
    json.dumps({"action": "select_bond", "params": {"atom1_idx": 0, "atom2_idx": 99}}),
    json.dumps({"action": "teleport"}),
])
def test_guided_invalid_llm_reply_falls_back_to_use_default_with_a_warning(tmp_path, bad, caplog):
    engine = make_toy_engine(tmp_path)
    with caplog.at_level("WARNING"):
        update = DisconnectionAgent(llm=_decision_llm(lambda u: bad, []), engine=engine).run(
            _state(run_options={"retro_mode": "guided"}))
    res = update["results"]["t1"]
    dis = next(d for d in res["guided"]["decisions"] if d["decision_type"] == "disconnection_decision")
    assert dis["fallback"] and dis["action"].startswith("use_default") and "fallback" in dis["reasoning_summary"]
    assert res["guided"]["n_fallbacks"] == 1 and res["solved"]
    assert res["warnings"] and "rule default" in res["warnings"][0]
    assert "rule default" in caplog.text


def test_search_options_and_payload_shape(tmp_path):
    from molx_agent.interfaces.pipeline.models import DecisionContext, DecisionType

    engine = make_toy_engine(tmp_path)
    from molx_agent.agents.search_pool import SearchJob, run_searches

    graphs = run_searches(engine, [SearchJob(PARACETAMOL, "", {"time_limit": 5}, "en")], None)[0]["route_graphs"]
    assert search_options(graphs, "CCO") == []
    opts = search_options(graphs, PARACETAMOL)
    assert opts and opts[0]["reaction_smiles"] == ANHYDRIDE_RXN and opts[0]["route_rank"] == 1
    ctx = DecisionContext(decision_type=DecisionType.DISCONNECTION_DECISION, task_id="2",
                          context={"molecule_smiles": PARACETAMOL, "model_proposals": []},
                          available_actions=[{"action_id": "use_default", "description": "rules"}])
    payload = decision_payload(ctx, opts, PARACETAMOL, "en")
    assert payload["kind"] == "retro_decision" and payload["default"] == {"action": "use_default"}
    assert {"question", "options", "answer_schema"} <= set(payload)
    assert payload["options"][-1]["answer"]["params"]["reaction_smiles"] == ANHYDRIDE_RXN
    json.dumps(payload)


# -- the chemist in the loop: interrupt() at each guided decision, Command(resume=...) --------------------------------
def _interrupts(out):
    return [i.value for i in out.get("__interrupt__") or []]


@pytest.mark.parametrize("saver_kind", ["memory", "sqlite"])
def test_ask_interrupts_at_each_decision_and_resume_replays_cheaply(tmp_path, monkeypatch, saver_kind):
    from langgraph.types import Command

    from molx_agent.agents import disconnection as disconnection_mod
    from molx_agent.agents.molx import MolxAgent, fresh_turn_state

    searches = []
    real = disconnection_mod.run_searches

    def counting(engine, jobs, workers=None):
        searches.extend(j.target for j in jobs)
        return real(engine, jobs, workers)

    monkeypatch.setattr(disconnection_mod, "run_searches", counting)
    if saver_kind == "memory":
        from langgraph.checkpoint.memory import MemorySaver

        saver = MemorySaver()
    else:
        from molx_agent.agents.molx import open_sqlite_saver

        saver, _conn = open_sqlite_saver(tmp_path / "threads.sqlite")
    agent = MolxAgent(llm=None, engine=make_toy_engine(tmp_path), checkpointer=saver, load_mcp=False)
    cfg = {"configurable": {"thread_id": "guided-ask"}, "recursion_limit": 200}
    out = agent.graph.invoke(fresh_turn_state(f"Plan a synthesis of {PARACETAMOL}",
                                              options={"retro_mode": "guided", "ask": True}), cfg)
    asked = _interrupts(out)
    assert len(asked) == 1 and asked[0]["kind"] == "retro_decision"
    assert asked[0]["decision_type"] == "strategy_selection"
    assert searches == [PARACETAMOL]

    out = agent.graph.invoke(Command(resume={"action": "use_default"}), cfg)
    asked = _interrupts(out)
    assert asked[0]["decision_type"] == "disconnection_decision"
    offered = [o for o in asked[0]["options"] if (o.get("answer") or {}).get("params", {}).get("reaction_smiles")
               == ANHYDRIDE_RXN]
    assert offered, asked[0]["options"]  # the model proposal and the search's route are offered

    # an invalid answer: the same decision is asked again, with the reason
    out = agent.graph.invoke(Command(resume={"action": "select_bond", "params": {"atom1_idx": 0,
                                                                                 "atom2_idx": 42}}), cfg)
    again = _interrupts(out)[0]
    assert again["decision_type"] == "disconnection_decision" and again["error"]["code"] == "invalid_answer"
    out = agent.graph.invoke(Command(resume=json.dumps(offered[0]["answer"])), cfg)  # a JSON string works too
    for _ in range(10):
        asked = _interrupts(out)
        if not asked:
            break
        assert asked[0]["decision_type"] in ("validation_judgment", "recursion_decision")
        out = agent.graph.invoke(Command(resume={"action": "use_default", "reasoning": "ok"}), cfg)
    assert not _interrupts(out)
    assert searches == [PARACETAMOL]  # every replay reused the cached search
    res = next(r for r in out["results"].values() if r.get("guided"))
    leaves, _ = _leaves(res)
    assert ANHYDRIDE in leaves  # the chemist's disconnection
    by = {d["decision_type"]: d for d in res["guided"]["decisions"]}
    assert res["guided"]["decided_by"] == "chemist" and by["disconnection_decision"]["decided_by"] == "chemist"
    assert by["disconnection_decision"]["action"] == "custom_reaction"
    assert len(res["guided"]["decisions"]) == 4
    assert "guided" in out["final_answer"].lower()


def test_ask_without_a_checkpointer_decides_by_rules_with_a_warning(tmp_path):
    engine = make_toy_engine(tmp_path)
    update = DisconnectionAgent(engine=engine).run(_state(run_options={"retro_mode": "guided", "ask": True}))
    res = update["results"]["t1"]
    assert res["solved"] and res["guided"]["decided_by"] == "rules"
    assert any("checkpointer" in w for w in res["warnings"])


def test_guided_unsolvable_target_is_not_re_searched(tmp_path):
    from molx_agent.agents.molx import MolxAgent
    from tests.agents.conftest import STRYCHNINE

    agent = MolxAgent(llm=None, engine=make_toy_engine(tmp_path), load_mcp=False)
    state = agent.invoke(f"Plan a synthesis of {STRYCHNINE}", options={"retro_mode": "guided", "search_time": 2})
    res = state["results"]["t2"]
    assert res["strategy"] == "guided" and len(state["tasks"]["t2"]["attempts"]) == 1
    assert res["guided"]["n_decisions"] >= 2 and state["final_answer"]


def test_ask_in_a_later_turn_of_the_same_thread_asks_again(tmp_path):
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.types import Command

    from molx_agent.agents.molx import MolxAgent

    agent = MolxAgent(llm=None, engine=make_toy_engine(tmp_path), checkpointer=MemorySaver(), load_mcp=False)
    opts = {"retro_mode": "guided", "ask": True}
    cfg = {"configurable": {"thread_id": "two-turns"}, "recursion_limit": 200}
    for turn in range(2):
        out = agent.graph.invoke(agent._turn(f"Plan a synthesis of {PARACETAMOL}", None, None, opts), cfg)
        n = 0
        while _interrupts(out):
            assert _interrupts(out)[0]["kind"] == "retro_decision" and "replay" not in _interrupts(out)[0]
            out = agent.graph.invoke(Command(resume={"action": "use_default"}), cfg)
            n += 1
        assert n == 4, (turn, n)  # the second turn's decisions are asked again, not taken from the first
        assert out["results"]["t2"]["guided"]["decided_by"] == "chemist"

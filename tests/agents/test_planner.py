"""Planner: DAG templates, plan validation, scheduling, reflection and re-planning."""

from __future__ import annotations

import pytest

from molx_agent.agents.planner import (
    DAG_TEMPLATES,
    PlannedTask,
    PlannerAgent,
    extract_options,
    validate_plan,
)


@pytest.mark.parametrize(
    ("intent", "chain"),
    [
        ("molecule_query", ["analysis"]),
        ("reaction_validation", ["validation"]),
        ("retrosynthesis", ["analysis", "disconnection", "validation", "reporter"]),
        ("sar_analysis", ["data_cleaner", "sar", "reporter"]),
        ("data_processing", ["data_cleaner"]),
        ("synthesis_of_hits", ["data_cleaner", "sar", "disconnection", "validation", "reporter"]),
        ("unsupported", []),
    ],
)
def test_templates_follow_architecture(intent, chain):
    assert list(DAG_TEMPLATES[intent]) == chain
    update = PlannerAgent().think({"user_query": "Plan a synthesis of paracetamol", "intent": intent})
    tasks = list(update["tasks"].values())
    assert [t["type"] for t in tasks] == chain
    for prev, task in zip(tasks, tasks[1:], strict=False):
        assert task["depends_on"] == [prev["id"]]
    if tasks:
        inputs = tasks[0]["inputs"]
        assert inputs["smiles"] == ["CC(=O)Nc1ccc(O)cc1"] and inputs["names"] == ["paracetamol"]
        assert set(inputs) == {"query", "smiles", "names", "reaction_smiles", "files", "options"}


def test_options_from_query():
    assert extract_options("analyse site:R1 please") == {"mode": "site:R1"}
    assert extract_options("分析 R2 位的 SAR") == {"mode": "site:R2"}
    assert extract_options("route with time limit 30") == {"time_limit": 30}


def test_validate_plan_rejects_bad_plans():
    ok = [PlannedTask(id="a", type="analysis"), PlannedTask(id="b", type="reporter", depends_on=["a"])]
    assert validate_plan(ok) == []
    assert "unknown worker type 'magic'" in validate_plan([PlannedTask(id="a", type="magic")])
    assert any("missing" in p for p in validate_plan([PlannedTask(id="a", type="sar", depends_on=["z"])]))
    cyc = [PlannedTask(id="a", type="sar", depends_on=["b"]), PlannedTask(id="b", type="sar", depends_on=["a"])]
    assert "dependency cycle" in validate_plan(cyc)
    assert "duplicate task ids" in validate_plan([PlannedTask(id="a", type="sar")] * 2)
    assert validate_plan([]) == ["empty plan"]


def _t(tid, status, deps=(), **kw):
    return {"id": tid, "type": "analysis", "status": status, "depends_on": list(deps), **kw}


def test_pick_next_task_is_topological():
    tasks = {"t1": _t("t1", "done"), "t2": _t("t2", "pending", ["t3"]), "t3": _t("t3", "pending", ["t1"])}
    assert PlannerAgent._pick_next_task(tasks) == "t3"
    tasks["t3"]["status"] = "running"
    assert PlannerAgent._pick_next_task(tasks) is None


def test_unavailable_dependency_does_not_block_but_failure_does():
    tasks = {"t1": _t("t1", "skipped", unavailable=True), "t2": _t("t2", "pending", ["t1"])}
    assert PlannerAgent._pick_next_task(tasks) == "t2"
    tasks = {"t1": _t("t1", "failed"), "t2": _t("t2", "pending", ["t1"]), "t3": _t("t3", "pending", ["t2"])}
    out = PlannerAgent.skip_blocked(tasks)
    assert out["t2"]["status"] == out["t3"]["status"] == "skipped"
    assert "t1" in out["t2"]["error"]


def test_reflect_and_optimize_retry_transient_failures_only():
    planner = PlannerAgent()
    state = {
        "tasks": {"t1": _t("t1", "failed"), "t2": _t("t2", "skipped", ["t1"]), "t3": _t("t3", "failed")},
        "results": {"t1": {"error": {"code": "worker_exception"}}, "t3": {"error": {"code": "invalid_smiles"}}},
        "iteration": 0,
    }
    refl = planner.reflect(state)["reflection"]
    assert refl["success"] is False and refl["should_replan"] is True and refl["retryable"] == ["t1"]
    update = planner.optimize({**state, "reflection": refl})
    assert update["iteration"] == 1
    assert update["tasks"]["t1"]["status"] == "pending" and update["tasks"]["t2"]["status"] == "pending"
    assert update["tasks"]["t3"]["status"] == "failed"  # bad input is not retried


def test_reflect_stops_after_max_iterations():
    from molx_agent.config import get_settings

    planner = PlannerAgent(settings=get_settings(max_iterations=2))
    state = {"tasks": {"t1": _t("t1", "failed")}, "results": {"t1": {"error": {"code": "boom"}}}, "iteration": 2}
    assert planner.reflect(state)["reflection"]["should_replan"] is False


def _failed_state():
    return {
        "user_query": "MW of aspirin",
        "tasks": {"t1": _t("t1", "failed", error="temporary failure", error_class="transient"),
                  "t2": _t("t2", "failed", error="timed out", error_class="transient")},
        "results": {"t1": {"error": {"code": "worker_exception", "message": "RuntimeError: temporary failure"}},
                    "t2": {"error": {"code": "timeout", "message": "timed out"}}},
        "iteration": 0,
    }


CATALOG = {"analysis": {"description": "molecule analysis", "option_keys": ("deep_analysis",)},
           "tool_agent": {"description": "tools", "option_keys": ()},
           "disconnection": {"description": "route search", "option_keys": ("time_limit", "expansion_top_k")}}


def test_llm_optimize_rewrites_the_remaining_plan(scripted_llm):
    import json

    reply = json.dumps({"tasks": [
        {"id": "t1", "type": "tool_agent", "description": "try the tools"},
        {"id": "t3", "type": "analysis", "depends_on": ["t1"], "inputs": {"options": {"deep_analysis": True}}}]})
    llm = scripted_llm([reply])
    planner = PlannerAgent(llm=llm, worker_catalog=CATALOG)
    state = _failed_state()
    refl = planner.derive_reflection(state)
    assert refl["should_replan"] and {a["task_id"] for a in refl["actions"]} == {"t1", "t2"}
    update = planner.optimize({**state, "reflection": refl})
    tasks = update["tasks"]
    assert tasks["t1"]["type"] == "tool_agent" and tasks["t1"]["description"] == "try the tools"
    assert tasks["t1"]["status"] == "pending" and tasks["t3"]["status"] == "pending"
    assert tasks["t3"]["inputs"]["options"]["deep_analysis"] is True and tasks["t3"]["depends_on"] == ["t1"]
    assert tasks["t2"]["status"] == "failed"  # the LLM's plan left it out
    assert update["iteration"] == 1 and update["plan_history"][0]["source"] == "replan-llm"
    # the LLM saw the error text of the failed tasks and the issues, in a formatted prompt
    system = str(llm.calls[0][0].content)
    assert "temporary" in system and "{{" not in system and "worker_exception" in system


@pytest.mark.parametrize("bad", [
    {"id": "t2", "type": "quantum_oracle"},  # unknown worker type
    {"id": "t2", "type": "analysis", "inputs": {"options": {"magic": 1}}},  # option the worker does not take
    {"id": "t2", "type": "analysis", "depends_on": ["nope"]},  # missing dependency
])
def test_llm_replan_is_validated_and_falls_back_to_the_rules(scripted_llm, bad):
    import json

    planner = PlannerAgent(llm=scripted_llm([json.dumps({"tasks": [bad]})]), worker_catalog=CATALOG)
    state = _failed_state()
    update = planner.optimize({**state, "reflection": planner.derive_reflection(state)})
    assert [t["type"] for t in update["tasks"].values()] == ["analysis", "analysis"]
    assert all(t["status"] == "pending" for t in update["tasks"].values())
    assert update["plan_history"][0]["source"] == "replan-rules"


def test_llm_optimize_with_invalid_answer_still_retries(scripted_llm):
    planner = PlannerAgent(llm=scripted_llm(["no idea"]))
    state = _failed_state()
    update = planner.optimize({**state, "reflection": planner.derive_reflection(state)})
    assert [t["type"] for t in update["tasks"].values()] == ["analysis", "analysis"]
    assert all(t["status"] == "pending" for t in update["tasks"].values())


def test_llm_reflection_cannot_invent_success_but_can_veto_a_retry(scripted_llm):
    import json

    state = _failed_state()
    llm = scripted_llm([json.dumps({"success": True, "should_replan": False, "issues": ["bad input"],
                                    "summary": "looks fine"})])
    refl = PlannerAgent(llm=llm).reflect(state)["reflection"]
    assert refl["success"] is False and refl["should_replan"] is False
    assert "bad input" in refl["llm_issues"] and refl["source"] == "rules+llm"
    system = str(llm.calls[0][0].content)
    assert '{"success": true|false' in system and "{{" not in system  # the prompt was formatted
    user = str(llm.calls[0][1].content)
    assert "temporary" in user  # the error text of the failed tasks reaches the LLM

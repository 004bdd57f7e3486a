"""A chemist in the loop and streaming: plan approval, route choice, worker interrupts, resume, stream events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.interrupts import check_answer, describe_interrupt, parse_answer_text
from molx_agent.agents.modules.events import ProgressEmitter
from molx_agent.agents.molx import MolxAgent, open_sqlite_saver, run_document
from molx_agent.errors import ConfigError, ValidationError
from tests.agents.conftest import PARACETAMOL, two_route_engine

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def agent(tmp_path):
    saver, conn = open_sqlite_saver(tmp_path / "runs.sqlite")
    yield MolxAgent(llm=None, engine=two_route_engine(tmp_path), checkpointer=saver)
    conn.close()


QUERY = f"Plan a synthesis of {PARACETAMOL}"


def test_plan_approval_stops_before_any_worker_and_resumes(agent):
    state = agent.invoke(QUERY, options={"confirm_plan": True})
    assert state["status"] == "interrupted" and state["thread_id"]
    question = state["interrupt"]
    assert question["kind"] == "plan_approval" and question["default"] == {"approve": True}
    assert [o["type"] for o in question["options"]] == ["analysis", "disconnection", "validation", "reporter"]
    assert all(t["status"] == "pending" for t in state["tasks"].values())  # nothing ran yet
    doc = run_document(state)
    assert doc == {"status": "interrupted", "thread_id": state["thread_id"], "interrupt": question, "query": QUERY}
    done = agent.resume(state["thread_id"], {"approve": True})
    assert "status" not in done and done["plan_approved"] is True
    assert all(t["status"] == "done" for t in done["tasks"].values())
    assert "Found 2 route(s)" in done["final_answer"]


def test_rejected_plan_with_feedback_replans_and_asks_again(agent):
    state = agent.invoke(QUERY, options={"confirm_plan": True})
    again = agent.resume(state["thread_id"], {"approve": False, "feedback": "search with a time limit 7"})
    assert again["status"] == "interrupted" and again["interrupt"]["kind"] == "plan_approval"
    assert again["interrupt"]["feedback_so_far"] == ["search with a time limit 7"]
    search = next(o for o in again["interrupt"]["options"] if o["type"] == "disconnection")
    assert search["options"]["time_limit"] == 7  # the feedback changed the plan
    done = agent.resume(again["thread_id"], {"approve": True})
    assert [p["source"] for p in done["plan_history"]][:2] == ["template", "template+feedback"]
    assert done["plan_history"][1]["feedback"] == ["search with a time limit 7"]
    assert done["tasks"]["t2"]["attempts"][0]["options"]["time_limit"] == 7


def test_rejected_plan_without_feedback_runs_nothing(agent):
    state = agent.invoke(QUERY, options={"confirm_plan": True})
    done = agent.resume(state["thread_id"], {"approve": False})
    assert done["plan_approved"] is False
    assert all(t["status"] == "skipped" for t in done["tasks"].values())
    assert not done["results"] and "did not approve" in done["final_answer"]


@pytest.mark.parametrize("bad", [{"approve": "maybe"}, {"route": 1}, "yes please", {"approve": True, "feedback": 3}])
def test_invalid_answer_is_a_clear_error_and_the_thread_stays_resumable(agent, bad):
    state = agent.invoke(QUERY, options={"confirm_plan": True})
    with pytest.raises(ValidationError) as err:
        agent.resume(state["thread_id"], bad)
    assert err.value.code == "invalid_answer" and "plan_approval" in str(err.value)
    still = agent.resume(state["thread_id"])  # no answer: the same question again, nothing ran
    assert still["status"] == "interrupted" and still["interrupt"] == state["interrupt"]
    assert agent.resume(state["thread_id"], {"approve": True})["plan_approved"] is True


def test_an_invalid_answer_sent_past_the_check_is_asked_again_with_the_error(agent):
    """A client resuming the graph directly (LangGraph Studio's API) gets the question again, not a crash."""
    from langgraph.types import Command

    state = agent.invoke(QUERY, options={"confirm_plan": True})
    cfg = {"configurable": {"thread_id": state["thread_id"]}}
    out = agent.graph.invoke(Command(resume={"approve": "maybe"}), cfg)
    question = out["__interrupt__"][0].value
    assert question["kind"] == "plan_approval" and "must be true or false" in question["error"]
    done = agent.resume(state["thread_id"], {"approve": True})
    assert done["plan_approved"] is True and all(t["status"] == "done" for t in done["tasks"].values())


def test_route_choice_the_report_and_answer_follow_the_chemists_route(agent):
    state = agent.invoke(QUERY, options={"choose_route": True})
    question = state["interrupt"]
    assert state["status"] == "interrupted" and question["kind"] == "route_choice"
    assert len(question["options"]) == 2 and question["default"] == {"route": 0}
    assert "CC(=O)OC(C)=O" in question["options"][0]["reactions"][0]
    assert state["tasks"]["t4"]["status"] == "pending"  # the reporter waits for the choice
    done = agent.resume(state["thread_id"], {"route": 1})
    validation = done["results"]["t3"]
    assert validation["targets"][0]["best_route"] == 1 and validation["targets"][0]["chosen_by"] == "chemist"
    assert validation["route_choice"][PARACETAMOL] == {"route": 1, "by": "chemist", "judged_best": 0}
    assert "CC(=O)Cl" in json.dumps(done["results"]["t2"]["route_graph"])
    assert "the chemist chose route 1" in done["final_answer"]
    tree = next(p for p in done["report_paths"] if p.endswith("tree.json"))
    report = json.loads(Path(tree).read_text())
    assert "CC(=O)Cl" in json.dumps(report["steps"]) and "CC(=O)OC(C)=O" not in json.dumps(report["steps"])
    assert {m["smiles"] for m in report["starting_materials"]} == {"CC(=O)Cl", "Nc1ccc(O)cc1"}


def test_route_choice_in_chinese_names_routes_by_their_option_id():
    """The question and the notes call a route by the id the chemist answers with (路线 0, 路线 1), never by an
    ordinal that starts at zero (第 0 条)."""
    from molx_agent.agents.interrupts import apply_route_choice, route_choice_payload

    routes = [{"n_steps": 2, "verdict": "accept", "confidence": "high", "steps": []},
              {"n_steps": 1, "verdict": "accept", "confidence": "medium", "steps": []}]
    target = {"target_smiles": PARACETAMOL, "target_name": "对乙酰氨基酚", "best_route": 0, "routes": routes}
    question = route_choice_payload(target, [{}, {}], language="zh")
    assert "（路线 0 至 1）" in question["question"] and "默认：评估最佳的路线 0" in question["question"]
    chosen = apply_route_choice({"targets": [target]}, 0, 1, language="zh")
    summary = chosen["targets"][0]["summary"]
    assert "化学家选择了路线 1（1 步" in summary and "而非评估最佳的路线 0" in summary and "第 0 条" not in summary


def test_route_choice_not_asked_for_a_single_route(tmp_path):
    from tests.agents.conftest import make_toy_engine

    a = MolxAgent(llm=None, engine=make_toy_engine(tmp_path))  # no checkpointer: an in-memory one is attached
    done = a.invoke(QUERY, options={"choose_route": True})
    assert "status" not in done and done["results"]["t3"]["route_choice"] == {}
    assert a.checkpointer is not None


def test_resume_errors(agent, tmp_path):
    with pytest.raises(ValidationError, match="no run is stored under thread id 'nope'"):
        agent.resume("nope", {"approve": True})
    done = agent.invoke("What is the molecular weight of aspirin?")
    with pytest.raises(ValidationError) as err:
        agent.resume(done["thread_id"], {"approve": True})
    assert err.value.code == "no_pending_question"
    # the former second positional argument, a LangGraph config, still works
    again = agent.resume(done["thread_id"], {"configurable": {}})
    assert again["final_answer"] == done["final_answer"]
    with pytest.raises(ConfigError):
        MolxAgent(llm=None).resume("x", {"approve": True})


class AskingWorker(BaseAgent):
    """A worker asking the chemist (like guided retrosynthesis) through the shared interrupt machinery."""

    name = "asker"

    def _run(self, task, state):
        from molx_agent.agents.interrupts import ask

        answer = ask({"kind": "retro_decision", "question": "Which disconnection?", "options": [
            {"id": "choose", "label": "amide C-N"}], "default": {"action": "use_default"},
            "answer_schema": {"action": "use_default | choose"}})
        return {"summary": f"the chemist said {answer['action']}"}


def test_an_interrupt_inside_a_worker_stops_the_run_and_resumes_it(agent):
    agent.register_worker("asker", AskingWorker())
    agent.planner.add_template("molecule_query", ("asker",))
    state = agent.invoke("What is the molecular weight of aspirin?")
    assert state["status"] == "interrupted" and state["interrupt"]["kind"] == "retro_decision"
    with pytest.raises(ValidationError, match="decision instruction"):
        agent.resume(state["thread_id"], ["not", "an", "object"])
    with pytest.raises(ValidationError, match="unknown action 'explode'"):
        agent.resume(state["thread_id"], {"action": "explode"})
    done = agent.resume(state["thread_id"], {"action": "choose"})
    assert "the chemist said choose" in done["final_answer"] and done["tasks"]["t1"]["status"] == "done"


def test_stream_events_and_final_document(agent):
    events = list(agent.stream(QUERY))
    kinds = [e["event"] for e in events]
    assert kinds[0] == "node_start" and events[0]["node"] == "classify" and kinds[-1] == "final"
    assert {"node_start", "node_end", "progress"} <= set(kinds) and "interrupt" not in kinds
    work = [e for e in events if e["event"] == "node_start" and e["node"] == "work"]
    assert [e["worker"] for e in work] == ["analysis", "disconnection", "validation", "reporter"]
    progress = [e for e in events if e["event"] == "progress"]
    assert {e["stage"] for e in progress} >= {"search_start", "search", "search_done"}
    search = next(e for e in progress if e["stage"] == "search")
    assert search["worker"] == "disconnection" and search["routes_found"] == 2 and search["expansions"] >= 1
    final = events[-1]
    assert final["status"] == "done" and final["thread_id"] and "Found 2 route(s)" in final["final_answer"]
    assert set(final) - {"event"} == set(run_document({"thread_id": "x"}))
    json.dumps(events)  # every event is JSON


def test_stream_sar_stages(agent):
    events = list(agent.stream("Analyse the SAR of this series", files=[str(EXAMPLES / "series.csv")]))
    stages = [e["stage"] for e in events if e["event"] == "progress" and e["worker"] == "sar"]
    assert stages == ["load_data", "analyse_series", "insights", "write_tables", "done"]


def test_stream_stops_at_an_interrupt_and_stream_resume_goes_on(agent):
    events = list(agent.stream(QUERY, options={"confirm_plan": True, "choose_route": True}))
    assert [e["event"] for e in events[-2:]] == ["interrupt", "final"]
    tid = events[-1]["thread_id"]
    assert events[-1] == {"event": "final", "status": "interrupted", "thread_id": tid,
                          "interrupt": events[-2]["interrupt"], "query": QUERY}
    second = list(agent.stream_resume(tid, {"approve": True}))
    assert second[-2]["interrupt"]["kind"] == "route_choice"
    assert any(e.get("worker") == "disconnection" for e in second)
    third = list(agent.stream_resume(tid, {"route": 0}))
    assert third[-1]["status"] == "done" and third[-1]["thread_id"] == tid
    assert [e["worker"] for e in third if e["event"] == "node_start" and e["node"] == "work"] == ["reporter"]


def test_progress_is_throttled():
    seen = []
    emit = ProgressEmitter(seen.append, "disconnection", "t2", min_interval=3600)
    for i in range(500):
        emit("search", expansions=i)
    emit("search", force=True, expansions=500)
    emit("search_done", expansions=500)
    assert [e["expansions"] for e in seen] == [0, 500, 500]
    assert seen[0] == {"event": "progress", "node": "work", "worker": "disconnection", "task_id": "t2",
                       "stage": "search", "expansions": 0}
    assert not ProgressEmitter(None, "x", None)  # outside a graph run: silent


def test_answer_text_shortcuts_and_description():
    plan = {"kind": "plan_approval", "default": {"approve": True}, "question": "Approve?", "options": [
        {"id": "t1", "label": "analysis"}], "answer_schema": {"approve": "boolean"}}
    assert parse_answer_text(plan, "") == {"approve": True}
    assert parse_answer_text(plan, "yes") == {"approve": True}
    assert parse_answer_text(plan, "no") == {"approve": False}
    assert parse_answer_text(plan, "no: search longer") == {"approve": False, "feedback": "search longer"}
    assert parse_answer_text(plan, "only the properties please") == {"approve": False,
                                                                     "feedback": "only the properties please"}
    assert parse_answer_text(plan, '{"approve": false, "feedback": "x"}') == {"approve": False, "feedback": "x"}
    route = {"kind": "route_choice", "default": {"route": 0}, "options": [{"id": 0}, {"id": 1}]}
    assert parse_answer_text(route, "1") == 1 and check_answer(route, 1) == {"route": 1}
    assert parse_answer_text(route, "route 1") == {"route": 1}
    with pytest.raises(ValidationError, match="from 0 to 1"):
        check_answer(route, {"route": 2})
    route["options"][1].update(label="1 step(s)", reactions=["CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"])
    assert "  [1] 1 step(s)\n        CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1" in describe_interrupt(route)
    text = describe_interrupt(plan, "abc123")
    assert "Approve?" in text and "[t1] analysis" in text and "molx-agent resume abc123 --answer" in text


def test_stream_errors_come_before_any_event(agent):
    with pytest.raises(ValidationError) as err:
        agent.stream("   ")
    assert err.value.code == "empty_query"
    with pytest.raises(ValidationError, match="no run is stored"):
        agent.stream_resume("nope", {"approve": True})


def test_two_parallel_tasks_asking_are_answered_one_after_the_other(tmp_path):
    """Independent tasks run in parallel (Send); each question is answered in turn by resume."""
    from molx_agent.agents.planner import PlannerAgent, plan_entry

    class TwoAskers(PlannerAgent):
        def think(self, state):
            tasks = {tid: {"id": tid, "type": "asker", "description": "", "inputs": {}, "depends_on": [],
                           "status": "pending"} for tid in ("t1", "t2")}
            return {"tasks": tasks, "plan_history": [plan_entry(tasks, 0, "test")]}

    saver, conn = open_sqlite_saver(tmp_path / "runs.sqlite")
    agent = MolxAgent(llm=None, planner=TwoAskers(), workers={"asker": AskingWorker()}, checkpointer=saver)
    first = agent.invoke("What is the molecular weight of aspirin?")
    assert first["status"] == "interrupted" and first["interrupt"]["kind"] == "retro_decision"
    second = agent.resume(first["thread_id"], {"action": "choose"})
    assert second["status"] == "interrupted"
    done = agent.resume(first["thread_id"], {"action": "use_default"})
    conn.close()
    assert "status" not in done and {t["status"] for t in done["tasks"].values()} == {"done"}
    said = sorted(r["summary"] for r in done["results"].values())
    assert said == ["the chemist said choose", "the chemist said use_default"]


def test_stream_reports_each_guided_decision(agent):
    """Guided retrosynthesis (rules): every decision is a live ``guided_decision`` progress event, in order."""
    events = list(agent.stream(QUERY, options={"retro_mode": "guided"}))
    assert events[-1]["status"] == "done"
    decisions = [e for e in events if e["event"] == "progress" and e["stage"] == "guided_decision"]
    rec = next(r for r in events[-1]["results"].values() if r.get("guided"))
    assert len(decisions) == rec["guided"]["n_decisions"] >= 1
    assert [e["decision"] for e in decisions] == list(range(1, len(decisions) + 1))
    assert all(e["worker"] == "disconnection" and e["decided_by"] == "rules" and not e["fallback"]
               for e in decisions)
    assert [e["action"] for e in decisions] == [row["action"] for row in rec["guided"]["decisions"]]

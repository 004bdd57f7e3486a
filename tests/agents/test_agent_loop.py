"""The agent loop end to end: checkpoint-safe state for every intent, resume after a kill, judging workers,
reflection on verdicts, re-plans that change the search, synthesis of hits, parallel tasks (toy engine)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.molx import MolxAgent, open_sqlite_saver
from molx_agent.retro.search_types import SearchConfig
from tests.agents.conftest import (
    GSK3B_017,
    GSK3B_020,
    GSK3B_021,
    PARACETAMOL,
    SERIES_CSV,
    STRYCHNINE,
)

REPO = Path(__file__).resolve().parents[2]

INTENT_QUERIES = [
    ("molecule_query", "What is the logP of aspirin?", []),
    ("retrosynthesis", "Plan a synthesis of paracetamol", []),
    ("reaction_validation", "Is CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1 balanced?", []),
    ("sar_analysis", "Analyse the SAR of this series", [SERIES_CSV]),
    ("data_processing", "Clean and standardise this file", [SERIES_CSV]),
    ("synthesis_of_hits", "Find the best compounds and plan their synthesis", [SERIES_CSV]),
    ("unsupported", "What's the weather like?", []),
]


def _plain_json(value):
    """Round-trips through strict JSON unchanged (no numpy, no objects, no NaN)."""
    text = json.dumps(value, allow_nan=False)
    assert json.loads(text) == value
    return value


@pytest.mark.parametrize(("intent", "query", "files"), INTENT_QUERIES, ids=[q[0] for q in INTENT_QUERIES])
def test_every_intent_runs_through_a_sqlite_checkpointer(tmp_path, toy_engine, intent, query, files):
    saver, conn = open_sqlite_saver(tmp_path / "runs.sqlite")
    agent = MolxAgent(llm=None, engine=toy_engine, checkpointer=saver, search_workers=1)
    state = agent.invoke(query, files=[str(f) for f in files], options={"search_time": 1})
    assert state["intent"] == intent and state["final_answer"]
    assert state["thread_id"] and state["thread_id"] != "default"
    stored = agent.graph.get_state({"configurable": {"thread_id": state["thread_id"]}}).values
    _plain_json({k: v for k, v in stored.items() if k != "messages"})  # everything but the messages is plain JSON
    assert stored["results"] == state["results"] and stored["final_answer"] == state["final_answer"]
    assert all(t["status"] in ("done", "skipped") for t in state["tasks"].values()), state["tasks"]
    # a second agent (a new process would do the same) reads the same thread back
    again = MolxAgent(llm=None, engine=toy_engine, checkpointer=saver)
    assert again.graph.get_state({"configurable": {"thread_id": state["thread_id"]}}).values["results"] == \
        state["results"]
    conn.close()


def test_each_invoke_gets_a_fresh_thread_unless_one_is_given(tmp_path):
    saver, conn = open_sqlite_saver(tmp_path / "t.sqlite")
    agent = MolxAgent(llm=None, checkpointer=saver)
    a = agent.invoke("MW of aspirin")
    b = agent.invoke("MW of ethanol")
    assert a["thread_id"] != b["thread_id"] and "default" not in (a["thread_id"], b["thread_id"])
    c = agent.invoke("and its TPSA?", thread_id=b["thread_id"])  # the thread is the conversation
    assert c["thread_id"] == b["thread_id"] and "20.23" in c["final_answer"]
    conn.close()


RESUME_SCRIPT = """
import os, sys, time
from pathlib import Path
from molx_agent.agents.molx import MolxAgent, open_sqlite_saver
from molx_agent.agents.sar import SARAgent

class SlowSAR(SARAgent):
    calls = 0
    def _run(self, task, state):
        SlowSAR.calls += 1
        if os.environ.get("HANG"):
            Path(os.environ["MARKER"]).write_text("sar started")
            time.sleep(600)
        return super()._run(task, state)

saver, conn = open_sqlite_saver(sys.argv[1])
agent = MolxAgent(llm=None, checkpointer=saver, workers={"sar": SlowSAR()})
if sys.argv[2] == "start":
    agent.invoke("Analyse the SAR of this series", files=[sys.argv[3]], thread_id="killed-run")
else:
    import json
    from molx_agent.agents import data_cleaner
    cleaned = []
    original = data_cleaner.DataCleanerAgent._run
    def counting(self, task, state):
        cleaned.append(1)
        return original(self, task, state)
    data_cleaner.DataCleanerAgent._run = counting
    state = agent.resume("killed-run")
    print(json.dumps({"answer": state["final_answer"], "statuses": {k: t["status"] for k, t in state["tasks"].items()},
                      "sar_calls": SlowSAR.calls, "cleaner_calls": len(cleaned),
                      "sar_attempts": len(state["tasks"]["t2"]["attempts"])}))
"""


def test_a_run_killed_mid_graph_resumes_from_its_checkpoint_in_a_new_process(tmp_path):
    db, marker = tmp_path / "runs.sqlite", tmp_path / "marker"
    env = {**os.environ, "MOLX_LLM_PROVIDER": "rules", "HANG": "1", "MARKER": str(marker),
           "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", RESUME_SCRIPT, str(db), "start", str(SERIES_CSV)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the SAR task never started"
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)  # mid-graph: the cleaner is done and checkpointed, the SAR task running
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    outputs = list((tmp_path / "outputs").iterdir())
    env.pop("HANG")
    out = subprocess.run([sys.executable, "-c", RESUME_SCRIPT, str(db), "resume"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["statuses"] == {"t1": "done", "t2": "done", "t3": "done"}
    assert data["cleaner_calls"] == 0 and data["sar_calls"] == 1  # only the interrupted task ran again
    assert data["sar_attempts"] == 1 and "GSK3B-017" in data["answer"] and "sar_report.html" in data["answer"]
    assert list((tmp_path / "outputs").iterdir()) == outputs  # the cleaner's folder was reused, none added


def test_a_file_without_a_smiles_column_is_attempted_once_and_answered_with_the_fix(tmp_path):
    bad = tmp_path / "assay.csv"
    bad.write_text("compound,IC50 (nM)\nA,12\nB,40\nC,7\n", encoding="utf-8")
    state = MolxAgent(llm=None).invoke("Analyse the SAR of this file", files=[str(bad)])
    cleaner = state["tasks"]["t1"]
    assert cleaner["status"] == "failed" and cleaner["error_class"] == "bad_input"
    assert len(cleaner["attempts"]) == 1 and state["iteration"] == 0 and len(state["plan_history"]) == 1
    assert state["reflection"]["should_replan"] is False and "t1" in state["reflection"]["not_retried"]
    assert [i["class"] for i in state["reflection"]["issues"]][:1] == ["bad_input"]
    answer = state["final_answer"]
    assert "bad input, not retried" in answer and "SMILES" in answer and "compound, IC50 (nM)" in answer


def test_an_unsolved_natural_product_is_replanned_with_a_changed_search(toy_engine):
    from molx_agent.cli.run import run_query

    agent = MolxAgent(llm=None, engine=toy_engine, search_workers=1)
    doc = run_query(f"Plan a synthesis of {STRYCHNINE}", agent=agent, search_time=2)
    search = doc["tasks"]["t2"]
    options = [a["options"] for a in search["attempts"]]
    assert options[0]["time_limit"] == 2  # --search-time: the first attempt's limit
    assert options[1]["strategy"] == "wider_longer" and options[1]["time_limit"] == 6.0
    assert options[1]["expansion_top_k"] == 100 and options[1]["max_expansions"] == 2 * SearchConfig().max_expansions
    assert options[2]["strategy"] == "strategic_disconnection"
    assert len(doc["plan_history"]) == len(search["attempts"]) == doc["iterations"] + 1
    assert doc["plan_history"][1]["changes"][0]["strategy"] == "wider_longer"
    assert doc["plan_history"][1]["tasks"][1]["inputs"]["options"]["time_limit"] == 6.0
    first = doc["reflection"][0]
    assert first["should_replan"] and any(i["code"] == "not_solved" for i in first["issues"])
    assert doc["results"]["t3"]["verdict"] == "reject"  # an unsolved search is never a success
    answer = doc["final_answer"]
    assert "What was tried" in answer and "wider_longer" in answer and "strategic_disconnection" in answer
    assert "no untried change" in answer and "not_solved" in answer


def test_synthesis_of_hits_ranks_buys_judges_and_replans(toy_engine):
    state = MolxAgent(llm=None, engine=toy_engine).invoke(
        "Find the best compounds in this series and plan their synthesis", files=[str(SERIES_CSV)],
        options={"search_time": 1})
    top = state["results"]["t2"]["top_compounds"]
    assert [c["id"] for c in top[:3]] == ["GSK3B-017", "GSK3B-021", "GSK3B-020"]  # pKi ties broken by LLE
    assert top[0]["p_activity"] == top[1]["p_activity"] == 8.0 and top[0]["lle"] >= top[1]["lle"]
    search = state["results"]["t3"]
    records = {r["target_name"]: r for r in search["targets"]}
    assert records["GSK3B-017"]["purchasable"] is True and "buy it" in records["GSK3B-017"]["summary"]
    strategies = [p["changes"][0]["strategy"] for p in state["plan_history"][1:]]
    assert strategies[0] == "avoid"  # the analog shortcut's bought analog is excluded first
    assert state["plan_history"][1]["changes"][0]["options"]["exclude_leaves"] == [GSK3B_017]
    assert "strategic_disconnection" in strategies
    judged = {t["target_name"]: t for t in state["results"]["t4"]["targets"]}
    assert set(judged) == {"GSK3B-017", "GSK3B-021", "GSK3B-020"}  # every target judged
    assert judged["GSK3B-020"]["verdict"] == "accept"  # solved by the strategic first disconnection
    assert judged["GSK3B-021"]["verdict"] == "accept"
    kinds = {r["strategy"] for r in judged["GSK3B-021"]["routes"]}
    assert "search" in kinds and "strategic_disconnection" in kinds  # the weak analog route was kept and judged
    analog = next(r for r in judged["GSK3B-021"]["routes"] if r["strategy"] == "search")
    assert analog["verdict"] == "weak" and "analog_shortcut" in {i["code"] for i in analog["issues"]}
    assert state["results"]["t4"]["verdict"] == "accept"
    assert "buy it" in state["final_answer"]
    assert any(p.endswith("SYNTHESIS_REPORT.html") for p in state["report_paths"])


class BarrierWorker(BaseAgent):
    """Waits until its twin runs too: the test fails (BrokenBarrierError) unless both run at the same time."""

    def __init__(self, name: str, barrier: threading.Barrier) -> None:
        super().__init__()
        self.name = name
        self.description = f"custom worker {name}"
        self.barrier = barrier

    def _run(self, task, state):
        self.barrier.wait()
        return {"summary": f"{self.name} ran alongside its twin", "verdict": "accept"}


def test_independent_tasks_of_custom_worker_types_run_in_parallel(scripted_llm):
    from molx_agent.agents.intent_classifier import IntentClassifierAgent, IntentResult

    class Fixed(IntentClassifierAgent):
        def classify(self, user_query, input_files=None):
            return IntentResult(intent="molecule_query", confidence=1.0, reasoning=["fixed"])

    barrier = threading.Barrier(2, timeout=20)
    plan = json.dumps({"tasks": [{"id": "a", "type": "left"}, {"id": "b", "type": "right"},
                                 {"id": "c", "type": "analysis", "depends_on": ["a", "b"]}]})
    llm = scripted_llm(lambda messages: plan if "plan a task DAG" in str(messages[0].content) else "{}")
    agent = MolxAgent(llm=llm, classifier=Fixed(), tools=[],
                      workers={"left": BarrierWorker("left", barrier), "right": BarrierWorker("right", barrier)})
    assert {"left", "right"} <= set(agent.planner.worker_types)
    state = agent.invoke("MW of aspirin")
    assert [state["tasks"][t]["status"] for t in "abc"] == ["done", "done", "done"]
    assert "left ran alongside its twin" in state["final_answer"] and "180.16" in state["final_answer"]
    assert "left (custom worker left)" in str(llm.calls[0][0].content)  # the planner offered the custom type


def test_a_transient_failure_is_retried_but_an_internal_error_is_not():
    class Flaky(BaseAgent):
        name = "analysis"
        calls = 0

        def _run(self, task, state):
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise TimeoutError("the server did not answer")
            return {"summary": "worked on retry"}

    state = MolxAgent(llm=None, workers={"analysis": Flaky()}).invoke("MW of aspirin")
    assert Flaky.calls == 2 and state["tasks"]["t1"]["status"] == "done"
    assert [a["status"] for a in state["tasks"]["t1"]["attempts"]] == ["failed", "done"]
    assert state["tasks"]["t1"]["attempts"][0]["error_class"] == "transient"

    class Buggy(BaseAgent):
        name = "analysis"
        calls = 0

        def _run(self, task, state):
            Buggy.calls += 1
            raise KeyError("molecules")

    state = MolxAgent(llm=None, workers={"analysis": Buggy()}).invoke("MW of aspirin")
    assert Buggy.calls == 1 and state["tasks"]["t1"]["error_class"] == "internal" and state["iteration"] == 0


def test_a_worker_result_with_numpy_values_is_stored_as_plain_json(tmp_path):
    import numpy as np

    class NumpyWorker(BaseAgent):
        name = "analysis"

        def _run(self, task, state):
            return {"summary": "numbers", "value": np.float64(1.5), "count": np.int64(3), "flags": np.array([True]),
                    "missing": float("nan"), "path": tmp_path}

    saver, conn = open_sqlite_saver(tmp_path / "np.sqlite")
    state = MolxAgent(llm=None, workers={"analysis": NumpyWorker()}, checkpointer=saver).invoke("MW of aspirin")
    result = state["results"]["t1"]
    assert result["value"] == 1.5 and type(result["value"]) is float and type(result["count"]) is int
    assert result["flags"] == [True] and result["missing"] is None and result["path"] == str(tmp_path)
    _plain_json(result)
    conn.close()


def test_a_task_that_adds_nothing_is_dropped(toy_engine, tmp_path):
    from molx_agent.agents.planner import PlannerAgent

    tasks = {"t1": {"id": "t1", "type": "disconnection", "status": "done", "depends_on": []},
             "t2": {"id": "t2", "type": "validation", "status": "pending", "depends_on": ["t1"], "inputs": {}},
             "t3": {"id": "t3", "type": "reporter", "status": "pending", "depends_on": ["t2"], "inputs": {}}}
    results = {"t1": {"targets": [{"target_smiles": GSK3B_017, "purchasable": True, "searches": []}],
                      "target_smiles": GSK3B_017, "purchasable": True, "searches": []}}
    pruned = PlannerAgent.prune(tasks, results)
    assert pruned["t2"]["status"] == "skipped" and "sold" in pruned["t2"]["dropped"]
    pruned = PlannerAgent.prune(pruned, results)
    assert pruned["t3"]["status"] == "skipped" and "nothing" not in pruned["t3"]["dropped"]


def test_strategic_route_combines_the_first_step_with_fragment_routes(toy_engine):
    from molx_agent.agents.disconnection import DisconnectionAgent
    from molx_agent.retro.route import RetroGraph

    spec = {"label": "aryl amine Ar-N", "reaction_type": "Buchwald-Hartwig", "confidence": 0.8,
            "fragments": ["Brc1nccc(-c2cnn3ncccc23)n1", "Nc1ccc(F)c(F)c1"]}
    task = {"id": "t1", "type": "disconnection", "status": "pending", "depends_on": [],
            "inputs": {"smiles": [GSK3B_020], "options": {"first_disconnection": {GSK3B_020: spec},
                                                          "strategy": "strategic_disconnection"}}}
    out = DisconnectionAgent(engine=toy_engine).run({"current_task_id": "t1", "tasks": {"t1": task}, "results": {}})
    res = out["results"]["t1"]
    assert res["solved"] is True and res["first_disconnection"]["step_judgement"]["verdict"] != "invalid"
    graph = RetroGraph.from_dict(res["route_graphs"][0])
    assert graph.n_steps == 1 and graph.is_complete()
    assert toy_engine.judge_route(graph)["verdict"] == "accept"
    assert PARACETAMOL not in json.dumps(res)  # nothing else was searched
    assert GSK3B_021 not in json.dumps(res)


def test_strategic_first_step_is_judged_on_the_cappings_own_atom_map(toy_engine):
    from molx_agent.agents.disconnection import DisconnectionAgent
    from molx_agent.chem.smart_cap import suggest_capping

    target = "C[C@@H](Oc1ccccc1)c1ccccc1"  # two phenyl rings: a guessed map can swap them (a false C-C cleavage)
    cap = next(p for p in suggest_capping(target, (1, 2)) if p["reaction_type"] == "Williamson ether")
    assert cap["fragments"][0] == "C[C@H](Br)c1ccccc1"  # the inverted (S)-bromide for the (R)-ether
    spec = {"label": "ether O-C(sp3)", "reaction_type": "Williamson ether", "confidence": cap["confidence"],
            "fragments": cap["fragments"], "mapped_reaction": cap["mapped_reaction"]}
    task = {"id": "t1", "type": "disconnection", "status": "pending", "depends_on": [],
            "inputs": {"smiles": [target], "options": {"first_disconnection": {target: spec},
                                                        "strategy": "strategic_disconnection"}}}
    out = DisconnectionAgent(engine=toy_engine).run({"current_task_id": "t1", "tasks": {"t1": task}, "results": {}})
    judgement = out["results"]["t1"]["first_disconnection"]["step_judgement"]
    assert judgement["verdict"] != "invalid", judgement


def test_a_finished_turn_keeps_one_checkpoint(tmp_path):
    saver, conn = open_sqlite_saver(tmp_path / "c.sqlite")
    agent = MolxAgent(llm=None, checkpointer=saver)
    first = agent.invoke("MW of aspirin", thread_id="compact")
    agent.invoke("and its TPSA?", thread_id="compact")
    rows = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = 'compact'").fetchone()[0]
    assert rows == 1 and first["thread_id"] == "compact"
    values = agent.graph.get_state({"configurable": {"thread_id": "compact"}}).values
    assert len(values["messages"]) == 4 and "63.6" in values["final_answer"]  # the whole conversation is kept
    conn.close()


def test_the_chinese_answer_explains_each_remaining_issue_in_chinese_with_its_details():
    from molx_agent.agents.answer import outcome_lines

    issue = {"class": "weak_result", "code": "halide_selectivity", "target_name": "苯妥英",
             "message": "selectivity: the step replaces the aryl C-Cl at atom 13 ...", "step": "A>>B"}
    state = {"iteration": 1, "reflection": {"issues": [issue], "actions": [], "should_replan": False}}
    zh = outcome_lines(state, "zh")
    assert zh[0].startswith("苯妥英: [halide_selectivity] 有步骤") and "aryl C-Cl at atom 13" in zh[0]
    assert "(A>>B)" in zh[0]
    en = outcome_lines(state, "en")
    assert en[0] == "苯妥英: [halide_selectivity] selectivity: the step replaces the aryl C-Cl at atom 13 ... (A>>B)"

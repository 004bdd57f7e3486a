"""The orchestration graph: topology snapshot, end-to-end rules mode, unavailable workers, re-planning."""

from __future__ import annotations

from pathlib import Path

import pytest

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.molx import MolxAgent
from molx_agent.config import get_settings
from molx_agent.errors import ExecutionError

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"


def test_graph_topology_snapshot():
    mermaid = MolxAgent(llm=None).graph.get_graph().draw_mermaid()
    # To update after an intended change: write draw_mermaid() to tests/agents/snapshots/graph.mmd and review.
    assert mermaid == SNAPSHOT.read_text(encoding="utf-8")


def test_graph_edges():
    graph = MolxAgent(llm=None).graph.get_graph()
    edges = {(e.source, e.target) for e in graph.edges}
    assert edges == {
        ("__start__", "classify"), ("classify", "plan"), ("classify", "finalize"), ("plan", "act"),
        ("plan", "finalize"), ("act", "work"), ("work", "act"), ("act", "reflect"), ("reflect", "optimize"),
        ("reflect", "finalize"), ("optimize", "act"), ("finalize", "__end__"),
        # run option confirm_plan: the chemist approves (act), re-plans with feedback (plan) or stops (finalize)
        ("plan", "approve_plan"), ("approve_plan", "act"), ("approve_plan", "plan"), ("approve_plan", "finalize"),
    }


def test_molecule_query_end_to_end_english():
    state = MolxAgent(llm=None).invoke("What is the molecular weight and logP of aspirin?")
    assert state["intent"] == "molecule_query" and state["language"] == "en"
    assert state["tasks"]["t1"]["status"] == "done"
    mol = state["results"]["t1"]["molecules"][0]
    assert mol["properties"]["molecular_weight"] == pytest.approx(180.16)
    answer = state["final_answer"]
    assert "180.16" in answer and "1.31" in answer and "Molecular weight" in answer
    assert answer.index("Molecular weight") < answer.index("Formula")  # asked properties first
    assert state["final_response"] == answer and state["messages"][-1].content == answer
    assert state["context_smiles"] == ["CC(=O)Oc1ccccc1C(=O)O"]


def test_molecule_query_end_to_end_chinese():
    state = MolxAgent(llm=None).invoke("阿司匹林的分子量是多少?")
    assert state["language"] == "zh"
    assert "分子量: 180.16" in state["final_answer"] and "阿司匹林" in state["final_answer"]
    assert "意图" in state["final_answer"]


def test_a_chinese_name_the_table_lacks_is_not_read_as_a_shorter_name_inside_it():
    # 4-氟苯胺 (4-fluoroaniline) is no known name: the agent asks for a SMILES, in Chinese, instead of planning a
    # route to the aniline whose name sits inside it
    state = MolxAgent(llm=None).invoke("请为4-氟苯胺设计逆合成路线")
    assert state["tasks"]["t1"]["status"] == "failed" and state["errors"][0]["code"] == "no_molecule"
    answer = state["final_answer"]
    assert "没有在问题中找到分子" in answer and "给出 SMILES" in answer and "give a SMILES" not in answer
    assert "Nc1ccccc1" not in answer


def test_an_input_error_reads_in_chinese_in_a_chinese_answer():
    # the data cleaner raises "no data file" with English text; a Chinese query's answer says it in Chinese
    state = MolxAgent(llm=None).invoke("请分析这组化合物的构效关系")
    assert state["errors"][0]["code"] == "no_data_file"
    answer = state["final_answer"]
    assert "没有给出数据文件" in answer and "给出 CSV/Excel/SDF 文件" in answer
    assert "pass a CSV" not in answer and "no data file" not in answer
    english = MolxAgent(llm=None).invoke("Analyse the SAR of my series")["final_answer"]
    assert "no data file was given to clean" in english and "pass a CSV/Excel/SDF file" in english


def test_invalid_smiles_gives_a_clear_failure():
    state = MolxAgent(llm=None).invoke("What is the TPSA of C1CC?")
    assert state["tasks"]["t1"]["status"] == "failed"
    assert state["errors"][0]["code"] == "invalid_smiles" and state["errors"][0]["value"] == "C1CC"
    assert "C1CC" in state["final_answer"]
    assert state["iteration"] == 0  # bad input is not retried


def test_unsupported_query_gets_friendly_answer_and_no_tasks():
    state = MolxAgent(llm=None).invoke("what's the weather like?")
    assert state["intent"] == "unsupported" and state["tasks"] == {}
    assert "rephrase" in state["final_answer"]


def test_missing_worker_module_says_not_available(monkeypatch):
    from molx_agent.agents import workers

    monkeypatch.setitem(workers.WORKER_CLASSES, "validation", "molx_agent.agents.not_built_yet:ValidationAgent")
    state = MolxAgent(llm=None).invoke("Is CC(=O)O.OCC>>CC(=O)OCC balanced?")
    assert state["intent"] == "reaction_validation"
    assert state["tasks"]["t1"]["status"] == "skipped" and state["results"]["t1"]["unavailable"] is True
    assert "reaction validation capability is not available yet" in state["final_answer"]
    state = MolxAgent(llm=None).invoke("请验证反应 CC(=O)O.OCC>>CC(=O)OCC")
    assert "尚不可用" in state["final_answer"]


def test_broken_worker_module_fails_instead_of_pretending(monkeypatch):
    from molx_agent.agents import workers

    monkeypatch.setitem(workers.WORKER_CLASSES, "analysis", "molx_agent.agents.analysis:NoSuchClass")
    state = MolxAgent(llm=None).invoke("MW of aspirin")
    assert state["tasks"]["t1"]["status"] == "failed"


class FlakyWorker(BaseAgent):
    name = "analysis"

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures
        self.calls = 0

    def _run(self, task, state):
        self.calls += 1
        if self.calls <= self.failures:
            raise ExecutionError("transient", "temporary failure")
        return {"summary": "worked on retry"}


def test_optimize_retries_transient_failure():
    worker = FlakyWorker(failures=1)
    state = MolxAgent(llm=None, workers={"analysis": worker}).invoke("MW of aspirin")
    assert worker.calls == 2 and state["iteration"] == 1
    assert state["tasks"]["t1"]["status"] == "done" and "worked on retry" in state["final_answer"]


def test_replanning_is_bounded_by_max_iterations():
    worker = FlakyWorker(failures=100)
    agent = MolxAgent(llm=None, settings=get_settings(max_iterations=2), workers={"analysis": worker})
    state = agent.invoke("MW of aspirin")
    assert worker.calls == 3 and state["iteration"] == 2
    assert state["tasks"]["t1"]["status"] == "failed" and "temporary failure" in state["final_answer"]


def test_invoke_carries_previous_state_forward():
    agent = MolxAgent(llm=None)
    first = agent.invoke("logP of ibuprofen")
    second = agent.invoke("and its TPSA?", state=first)
    assert second["tasks"]["t1"]["inputs"]["smiles"] == [first["context_smiles"][0]]
    assert "37.3" in second["final_answer"] and len(second["messages"]) == 4


def test_empty_query_is_rejected():
    from molx_agent.errors import ValidationError

    with pytest.raises(ValidationError):
        MolxAgent(llm=None).invoke("   ")


def test_ainvoke_runs_the_same_graph():
    import asyncio

    state = asyncio.run(MolxAgent(llm=None).ainvoke("MW of paracetamol"))
    assert "151.16" in state["final_answer"]


def test_ainvoke_reports_the_same_warnings_as_invoke(unused_local_url):
    import asyncio

    settings = get_settings(openai_base_url=unused_local_url, llm_provider="auto")
    agent = MolxAgent(settings=settings)  # endpoint down: auto falls back to rules with a warning
    assert agent.llm is None
    sync_warnings = [e for e in agent.invoke("MW of aspirin")["errors"] if e["code"] == "warning"]
    async_warnings = [e for e in asyncio.run(agent.ainvoke("MW of aspirin"))["errors"] if e["code"] == "warning"]
    assert sync_warnings == async_warnings and "offline rules mode" in sync_warnings[0]["message"]


def test_constructor_injection_of_every_component(scripted_llm):
    from langgraph.checkpoint.memory import InMemorySaver

    from molx_agent.agents.intent_classifier import IntentClassifierAgent, IntentResult
    from molx_agent.agents.planner import PlannerAgent

    class FixedClassifier(IntentClassifierAgent):
        def classify(self, user_query, input_files=None):
            return IntentResult(intent="molecule_query", confidence=0.42, reasoning=["injected"])

    class EchoWorker(BaseAgent):
        name = "analysis"

        def _run(self, task, state):
            return {"summary": f"echo {task['inputs']['query']}"}

    llm = scripted_llm(['{"summary": "The echo worker answered."}'])  # only the final summary asks the LLM
    saver = InMemorySaver()
    planner = PlannerAgent(llm=None)
    agent = MolxAgent(llm=llm, classifier=FixedClassifier(), planner=planner, workers={"analysis": EchoWorker()},
                      tools=[], checkpointer=saver)
    assert agent.llm is llm and agent.planner is planner and agent.checkpointer is saver
    state = agent.invoke("anything at all", config={"configurable": {"thread_id": "inj"}})
    assert state["intent_confidence"] == 0.42 and state["intent_reasoning"] == ["injected"]
    assert state["final_answer"].endswith("echo anything at all")
    # the injected classifier and planner never asked the LLM: its one call wrote the grounded final summary
    assert [str(c[0].content).split(" for ")[0] for c in llm.calls] == ["You write the final answer of molx-agent"]
    assert state["final_answer"].startswith("The echo worker answered.")
    assert saver.get({"configurable": {"thread_id": "inj"}}) is not None


def test_every_failed_molecule_is_named():
    state = MolxAgent(llm=None).invoke("What is the MW of c1cccc1 and C1CC?")
    assert state["tasks"]["t1"]["status"] == "failed"
    assert "c1cccc1" in state["final_answer"] and "C1CC" in state["final_answer"]
    partial = MolxAgent(llm=None).invoke("What is the MW of c1cccc1 and CCO?")
    assert partial["tasks"]["t1"]["status"] == "done"
    assert "46.07" in partial["final_answer"] and "c1cccc1" in partial["final_answer"]


def test_reaction_with_a_broken_molecule_names_it():
    state = MolxAgent(llm=None).invoke("Is CC(=O)Cl.c1cccc1N>>CC(=O)Nc1ccccc1 balanced?")
    assert state["intent"] == "reaction_validation" and state["tasks"]["t1"]["status"] == "failed"
    assert "c1cccc1N" in state["final_answer"]

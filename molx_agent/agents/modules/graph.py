"""LangGraph wiring: classify -> plan -> act <-> work (parallel) -> reflect -> optimize -> ... -> finalize.

``act`` marks blocked tasks skipped, drops tasks that would add nothing and marks every ready task ``running``;
its router sends each running task to the ``work`` node with LangGraph's ``Send`` so independent tasks of the DAG
run in parallel (their updates merge through the reducers of ``tasks``, ``results`` and ``errors``).  ``work``
runs one worker; when a superstep's work is done the graph returns to ``act``.  ``MolxGraphNodes`` holds the node
functions and the typed routers; ``build_graph`` compiles them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from molx_agent.agents.answer import compose_answer_with_llm, compose_final_answer
from molx_agent.agents.modules.state import AgentState, replace

logger = logging.getLogger(__name__)


class MolxGraphNodes:
    """Node functions of the orchestration graph."""

    def __init__(self, classifier: Any, planner: Any, worker_factory: Callable[[str], Any], llm: Any = None) -> None:
        self.classifier = classifier
        self.planner = planner
        self.worker_factory = worker_factory
        self.llm = llm  # writes the final summary (grounded in the results) when set

    # -- nodes -------------------------------------------------------------------------------
    def classify(self, state: AgentState) -> dict[str, Any]:
        return self.classifier.run(state)

    def plan(self, state: AgentState) -> dict[str, Any]:
        return _replacing_tasks(self.planner.think(state))

    def act(self, state: AgentState) -> dict[str, Any]:
        """Schedule: skip blocked tasks, drop useless ones, mark every ready task ``running``."""
        lang = state.get("language", "en")
        tasks = self.planner.skip_blocked(state.get("tasks") or {}, lang)
        tasks = self.planner.prune(tasks, state.get("results") or {}, lang)
        ready = self.planner.ready_tasks(tasks)
        for tid in ready:
            tasks[tid]["status"] = "running"
        update: dict[str, Any] = {"tasks": replace(tasks)}
        if ready:
            update["current_task_id"] = ready[-1]
            logger.debug("dispatching %s", ready)
        return update

    def work(self, state: AgentState) -> dict[str, Any]:
        """Run the worker of ``state["current_task_id"]`` (one ``Send`` per ready task)."""
        task_id = state.get("current_task_id") or ""
        task = (state.get("tasks") or {}).get(task_id) or {}
        try:
            worker = self.worker_factory(task.get("type", ""))
        except KeyError as exc:
            failed = {**task, "status": "failed", "error": str(exc), "error_class": "bad_input"}
            return {"tasks": {task_id: failed},
                    "results": {task_id: {"error": {"code": "unknown_worker", "message": str(exc)}}},
                    "errors": [{"task_id": task_id, "code": "unknown_worker", "message": str(exc)}]}
        return worker.run(state)

    def reflect(self, state: AgentState) -> dict[str, Any]:
        return self.planner.reflect(state)

    def optimize(self, state: AgentState) -> dict[str, Any]:
        return _replacing_tasks(self.planner.optimize(state))

    def finalize(self, state: AgentState) -> dict[str, Any]:
        answer, reports, _source = compose_answer_with_llm(state, self.llm)
        update: dict[str, Any] = {
            "final_answer": answer,
            "final_response": answer,
            "report_paths": reports,
            "messages": [AIMessage(content=answer)],
        }
        results = state.get("results") or {}
        smiles = [m["smiles"] for r in results.values() for m in (r.get("molecules") or [])
                  if isinstance(m, dict) and "properties" in m]
        if smiles:
            update["context_smiles"] = smiles
        files = [f for t in (state.get("tasks") or {}).values() for f in ((t.get("inputs") or {}).get("files") or [])]
        if files:
            update["context_files"] = list(dict.fromkeys(str(f) for f in files))
        sar = next((r["sar_result_file"] for r in results.values() if r.get("sar_result_file")), None)
        if sar or files:
            update["context_sar"] = sar
        return update

    # -- routers -----------------------------------------------------------------------------
    def route_after_classify(self, state: AgentState) -> Literal["plan", "finalize"]:
        return "finalize" if state.get("intent", "unsupported") == "unsupported" else "plan"

    def route_after_plan(self, state: AgentState) -> Literal["act", "finalize"]:
        return "act" if state.get("tasks") else "finalize"

    def route_after_act(self, state: AgentState) -> list[Send] | Literal["reflect"]:
        running = [tid for tid, t in (state.get("tasks") or {}).items() if t.get("status") == "running"]
        if not running:
            return "reflect"
        base = {k: v for k, v in state.items() if k != "messages"}
        return [Send("work", {**base, "current_task_id": tid}) for tid in running]

    def route_after_reflect(self, state: AgentState) -> Literal["optimize", "finalize"]:
        return "optimize" if (state.get("reflection") or {}).get("should_replan") else "finalize"


def _replacing_tasks(update: dict[str, Any]) -> dict[str, Any]:
    """A planner update whose ``tasks`` is a whole new plan: written with ``replace`` (not merged per id)."""
    if "tasks" in update:
        update = {**update, "tasks": replace(update["tasks"])}
    return update


def build_graph(nodes: MolxGraphNodes, checkpointer: Any = None) -> Any:
    """Compile the orchestration graph."""
    g = StateGraph(AgentState)
    g.add_node("classify", nodes.classify)
    g.add_node("plan", nodes.plan)
    g.add_node("act", nodes.act)
    g.add_node("work", nodes.work)
    g.add_node("reflect", nodes.reflect)
    g.add_node("optimize", nodes.optimize)
    g.add_node("finalize", nodes.finalize)
    g.add_edge(START, "classify")
    g.add_conditional_edges("classify", nodes.route_after_classify, {"plan": "plan", "finalize": "finalize"})
    g.add_conditional_edges("plan", nodes.route_after_plan, {"act": "act", "finalize": "finalize"})
    g.add_conditional_edges("act", nodes.route_after_act, ["work", "reflect"])
    g.add_edge("work", "act")
    g.add_conditional_edges("reflect", nodes.route_after_reflect, {"optimize": "optimize", "finalize": "finalize"})
    g.add_edge("optimize", "act")
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)


__all__ = ["MolxGraphNodes", "build_graph", "compose_final_answer"]

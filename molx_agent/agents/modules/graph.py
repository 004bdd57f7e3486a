"""LangGraph wiring: classify -> plan -> act (loop) -> reflect -> optimize -> finalize.

``MolxGraphNodes`` holds the node functions and the typed routers; ``build_graph`` compiles them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph

from molx_agent.agents.modules.prompts import FINAL_ANSWER_HEADERS, INTENT_LABELS
from molx_agent.agents.modules.state import AgentState

logger = logging.getLogger(__name__)


class MolxGraphNodes:
    """Node functions of the orchestration graph."""

    def __init__(self, classifier: Any, planner: Any, worker_factory: Callable[[str], Any]) -> None:
        self.classifier = classifier
        self.planner = planner
        self.worker_factory = worker_factory

    # -- nodes -------------------------------------------------------------------------------
    def classify(self, state: AgentState) -> dict[str, Any]:
        return self.classifier.run(state)

    def plan(self, state: AgentState) -> dict[str, Any]:
        return self.planner.think(state)

    def act(self, state: AgentState) -> dict[str, Any]:
        tasks = self.planner.skip_blocked(state.get("tasks") or {}, state.get("language", "en"))
        task_id = self.planner._pick_next_task(tasks)
        if task_id is None:
            return {"tasks": tasks}
        task_type = tasks[task_id]["type"]
        worker = self.worker_factory(task_type)
        tasks[task_id]["status"] = "running"
        update = worker.run({**state, "tasks": tasks, "current_task_id": task_id})  # type: ignore[typeddict-item]
        update["current_task_id"] = task_id
        if "tasks" in update:
            update["tasks"] = self.planner.skip_blocked(update["tasks"], state.get("language", "en"))
        return update

    def reflect(self, state: AgentState) -> dict[str, Any]:
        return self.planner.reflect(state)

    def optimize(self, state: AgentState) -> dict[str, Any]:
        return self.planner.optimize(state)

    def finalize(self, state: AgentState) -> dict[str, Any]:
        answer, reports = compose_final_answer(state)
        update: dict[str, Any] = {
            "final_answer": answer,
            "final_response": answer,
            "report_paths": reports,
            "messages": [AIMessage(content=answer)],
        }
        smiles = [
            m["smiles"]
            for r in (state.get("results") or {}).values()
            for m in (r.get("molecules") or [])
            if isinstance(m, dict) and "properties" in m
        ]
        if smiles:
            update["context_smiles"] = smiles
        return update

    # -- routers -----------------------------------------------------------------------------
    def route_after_classify(self, state: AgentState) -> Literal["plan", "finalize"]:
        return "finalize" if state.get("intent", "unsupported") == "unsupported" else "plan"

    def route_after_plan(self, state: AgentState) -> Literal["act", "finalize"]:
        return "act" if state.get("tasks") else "finalize"

    def route_after_act(self, state: AgentState) -> Literal["act", "reflect"]:
        tasks = self.planner.skip_blocked(state.get("tasks") or {}, state.get("language", "en"))
        return "act" if self.planner._pick_next_task(tasks) is not None else "reflect"

    def route_after_reflect(self, state: AgentState) -> Literal["optimize", "finalize"]:
        return "optimize" if (state.get("reflection") or {}).get("should_replan") else "finalize"


def _report_paths(result: dict[str, Any]) -> list[str]:
    paths = result.get("report_paths") or []
    if isinstance(paths, dict):
        paths = [v for v in paths.values() if isinstance(v, str)]
    return [str(p) for p in paths if p]


def compose_final_answer(state: AgentState) -> tuple[str, list[str]]:
    """Prose answer (in ``state['language']``) from the task results, plus every report path."""
    from molx_agent.agents.intent_classifier import INTENT_RESPONSES

    lang = state.get("language", "en")
    lang = lang if lang in FINAL_ANSWER_HEADERS else "en"
    h = FINAL_ANSWER_HEADERS[lang]
    intent = state.get("intent", "unsupported")
    if intent == "unsupported":
        return INTENT_RESPONSES["unsupported"][lang], []
    tasks = state.get("tasks") or {}
    results = state.get("results") or {}
    body: list[str] = []
    problems: list[str] = []
    reports: list[str] = []
    for tid, task in tasks.items():
        result = results.get(tid) or {}
        status = task.get("status")
        reports += [p for p in _report_paths(result) if p not in reports]
        if status == "done" and result.get("summary"):
            body.append(str(result["summary"]).strip())
        elif status == "skipped":
            why = result.get("summary") or task.get("error", "")
            if result.get("unavailable"):
                body.append(str(why))
            else:
                problems.append(f"{tid} ({task['type']}) {h['skipped']}: {why}")
        elif status == "failed":
            err = result.get("error") or {}
            msg = err.get("message") if isinstance(err, dict) else str(err)
            hint = err.get("hint") if isinstance(err, dict) else None
            problems.append(f"{tid} ({task['type']}) {h['failed']}: {msg or task.get('error', '')}"
                            + (f" (hint: {hint})" if hint and lang == "en" else (f"（提示：{hint}）" if hint else "")))
    label = INTENT_LABELS[lang].get(intent, intent)
    parts = [f"[{h['intent']}: {label}]"]
    parts += body or ([] if problems else [h["nothing"]])
    if problems:
        parts.append(f"{h['errors']}:\n" + "\n".join(f"- {p}" for p in problems))
    if reports:
        parts.append(f"{h['reports']}:\n" + "\n".join(f"- {p}" for p in reports))
    return "\n\n".join(dict.fromkeys(parts)), reports


def build_graph(nodes: MolxGraphNodes, checkpointer: Any = None) -> Any:
    """Compile the orchestration graph."""
    g = StateGraph(AgentState)
    g.add_node("classify", nodes.classify)
    g.add_node("plan", nodes.plan)
    g.add_node("act", nodes.act)
    g.add_node("reflect", nodes.reflect)
    g.add_node("optimize", nodes.optimize)
    g.add_node("finalize", nodes.finalize)
    g.add_edge(START, "classify")
    g.add_conditional_edges("classify", nodes.route_after_classify, {"plan": "plan", "finalize": "finalize"})
    g.add_conditional_edges("plan", nodes.route_after_plan, {"act": "act", "finalize": "finalize"})
    g.add_conditional_edges("act", nodes.route_after_act, {"act": "act", "reflect": "reflect"})
    g.add_conditional_edges("reflect", nodes.route_after_reflect, {"optimize": "optimize", "finalize": "finalize"})
    g.add_edge("optimize", "act")
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)


__all__ = ["MolxGraphNodes", "build_graph", "compose_final_answer"]

"""LangGraph wiring: classify -> plan -> act <-> work (parallel) -> reflect -> optimize -> ... -> finalize.

``act`` marks blocked tasks skipped, drops tasks that would add nothing and marks every ready task ``running``;
its router sends each running task to the ``work`` node with LangGraph's ``Send`` so independent tasks of the DAG
run in parallel (their updates merge through the reducers of ``tasks``, ``results`` and ``errors``).  ``work``
runs one worker; when a superstep's work is done the graph returns to ``act``.  ``MolxGraphNodes`` holds the node
functions and the typed routers; ``build_graph`` compiles them.

A chemist in the loop (:mod:`molx_agent.agents.interrupts`): with ``options["confirm_plan"]`` the plan goes through
``approve_plan`` (a LangGraph ``interrupt()``: approve, reject with feedback -> ``plan`` again, reject -> nothing
runs); with ``options["choose_route"]`` ``act`` asks which route of a judged target with several routes is reported
before the reporter runs.  Re-plans made by OPTIMIZE are not asked again.
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
    def intake(self, state: AgentState) -> dict[str, Any]:
        """Start a turn given the LangGraph Studio way (only the graph of :func:`build_graph` with ``intake=True``):
        a new human message is the question (chat), else a new ``user_query`` gets its human message; either way the
        per-turn fields are reset as :func:`~molx_agent.agents.molx.fresh_turn_state` does."""
        from langchain_core.messages import HumanMessage

        from molx_agent.agents.molx import fresh_turn_state

        messages = list(state.get("messages") or [])
        last = messages[-1] if messages else None
        query = str(state.get("user_query") or "").strip()
        if isinstance(last, HumanMessage):
            text = last.content if isinstance(last.content, str) else " ".join(
                str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in last.content)
            turn = fresh_turn_state(text.strip(), state.get("input_files"), state.get("options"))
            turn.pop("messages")
            return turn
        if query:
            return fresh_turn_state(query, state.get("input_files"), state.get("options"))
        return {}

    def classify(self, state: AgentState) -> dict[str, Any]:
        return self.classifier.run(state)

    def plan(self, state: AgentState) -> dict[str, Any]:
        feedback = [f for f in state.get("plan_feedback") or [] if f]
        if not feedback:
            return _replacing_tasks(self.planner.think(state))
        # a re-plan after the chemist rejected the plan: the request is the query plus every feedback given
        query = "\n".join([state.get("user_query", ""), *feedback])
        update = self.planner.think({**state, "user_query": query})
        for entry in update.get("plan_history") or []:
            entry["source"] = f"{entry.get('source', 'template')}+feedback"
            entry["reason"] = f"re-plan with the chemist's feedback: {' / '.join(feedback)}"
            entry["feedback"] = list(feedback)
        return _replacing_tasks(update)

    def approve_plan(self, state: AgentState) -> dict[str, Any]:
        """``options["confirm_plan"]``: the chemist approves the plan (it runs), rejects it with feedback (re-plan)
        or rejects it without feedback (nothing runs)."""
        from molx_agent.agents.interrupts import ask, plan_approval_payload

        answer = ask(plan_approval_payload(state))
        if answer["approve"]:
            return {"plan_approved": True}
        feedback = answer.get("feedback") or ""
        if feedback:
            return {"plan_approved": False, "plan_feedback": [*(state.get("plan_feedback") or []), feedback]}
        zh = state.get("language") == "zh"
        why = "化学家未批准该计划" if zh else "the chemist did not approve the plan"
        tasks = {tid: {**t, "status": "skipped", "error": why} for tid, t in (state.get("tasks") or {}).items()}
        return {"plan_approved": False, "tasks": replace(tasks)}

    def act(self, state: AgentState) -> dict[str, Any]:
        """Schedule: skip blocked tasks, drop useless ones, mark every ready task ``running``."""
        lang = state.get("language", "en")
        tasks = self.planner.skip_blocked(state.get("tasks") or {}, lang)
        tasks = self.planner.prune(tasks, state.get("results") or {}, lang)
        update: dict[str, Any] = {}
        if (state.get("options") or {}).get("choose_route"):
            chosen = self._choose_routes(state, tasks, lang)
            if chosen:
                update["results"] = chosen
        ready = self.planner.ready_tasks(tasks)
        for tid in ready:
            tasks[tid]["status"] = "running"
        update["tasks"] = replace(tasks)
        if ready:
            update["current_task_id"] = ready[-1]
            logger.debug("dispatching %s", ready)
        return update

    @staticmethod
    def _choose_routes(state: AgentState, tasks: dict[str, Any], lang: str) -> dict[str, Any]:
        """``options["choose_route"]``: for every judged target with several routes (a done ``validation`` task not
        asked yet), the chemist picks the route to report; returns the updated validation results."""
        from molx_agent.agents.interrupts import (
            apply_route_choice,
            apply_route_choice_to_search,
            ask,
            route_choice_payload,
        )

        results = state.get("results") or {}
        out: dict[str, Any] = {}
        for tid, task in tasks.items():
            result = results.get(tid) or {}
            if task.get("type") != "validation" or task.get("status") != "done" or result.get("mode") != "routes" \
                    or "route_choice" in result:
                continue
            records = [rec for dep in task.get("depends_on") or []
                       for rec in ((results.get(dep) or {}).get("targets") or [results.get(dep) or {}])]
            by_target = {rec.get("target_smiles"): rec.get("route_graphs") or [] for rec in records}
            current = result
            for i, target in enumerate(result.get("targets") or []):
                if len(target.get("routes") or []) < 2:
                    continue
                payload = route_choice_payload(target, by_target.get(target.get("target_smiles")) or [], lang, tid)
                answer = ask(payload)
                current = apply_route_choice(current, i, answer["route"], lang)
                for dep in task.get("depends_on") or []:  # the search result (and so the answer) follows the choice
                    search = out.get(dep) or results.get(dep) or {}
                    if search.get("route_graphs") or search.get("targets"):
                        out[dep] = apply_route_choice_to_search(search, target.get("target_smiles"),
                                                                answer["route"], lang)
            if current is result:
                current = {**result, "route_choice": {}}
            out[tid] = current
        return out

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

    def route_after_plan(self, state: AgentState) -> Literal["approve_plan", "act", "finalize"]:
        if not state.get("tasks"):
            return "finalize"
        return "approve_plan" if (state.get("options") or {}).get("confirm_plan") else "act"

    def route_after_approval(self, state: AgentState) -> Literal["act", "plan", "finalize"]:
        if state.get("plan_approved"):
            return "act"
        return "plan" if state.get("plan_feedback") and any(
            t.get("status") == "pending" for t in (state.get("tasks") or {}).values()) else "finalize"

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


def build_graph(nodes: MolxGraphNodes, checkpointer: Any = None, *, intake: bool = False) -> Any:
    """Compile the orchestration graph (``intake``: begin with :meth:`MolxGraphNodes.intake`, for clients that send
    only a message or a ``user_query``, such as LangGraph Studio)."""
    g = StateGraph(AgentState)
    if intake:
        g.add_node("intake", nodes.intake)
    g.add_node("classify", nodes.classify)
    g.add_node("plan", nodes.plan)
    g.add_node("act", nodes.act)
    g.add_node("work", nodes.work)
    g.add_node("reflect", nodes.reflect)
    g.add_node("optimize", nodes.optimize)
    g.add_node("finalize", nodes.finalize)
    if intake:
        g.add_edge(START, "intake")
        g.add_edge("intake", "classify")
    else:
        g.add_edge(START, "classify")
    g.add_conditional_edges("classify", nodes.route_after_classify, {"plan": "plan", "finalize": "finalize"})
    g.add_node("approve_plan", nodes.approve_plan)
    g.add_conditional_edges("plan", nodes.route_after_plan,
                            {"approve_plan": "approve_plan", "act": "act", "finalize": "finalize"})
    g.add_conditional_edges("approve_plan", nodes.route_after_approval,
                            {"act": "act", "plan": "plan", "finalize": "finalize"})
    g.add_conditional_edges("act", nodes.route_after_act, ["work", "reflect"])
    g.add_edge("work", "act")
    g.add_conditional_edges("reflect", nodes.route_after_reflect, {"optimize": "optimize", "finalize": "finalize"})
    g.add_edge("optimize", "act")
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)


__all__ = ["MolxGraphNodes", "build_graph", "compose_final_answer"]

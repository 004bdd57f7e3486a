"""A small agent implementing the stream/interrupt/resume contract of issue 26 (notes: contract26) on a real
LangGraph graph with ``interrupt()``: plan approval, then route choice, then the answer.  The server's interrupt
tests run on it, so they do not depend on the chemistry; the real agent is tested too (test_interrupts_real)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, interrupt

from molx_agent.errors import ValidationError

ROUTES = [
    {"id": "r0", "label": "N-acetylation of 4-aminophenol", "confidence": "high", "n_steps": 1,
     "smiles": "CC(=O)Nc1ccc(O)cc1"},
    {"id": "r1", "label": "Beckmann rearrangement route", "confidence": "low", "n_steps": 2,
     "smiles": "CC(=NO)c1ccc(O)cc1"},
]


class S(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    user_query: str
    plan: str
    route: int
    final_answer: str


class FakeContractAgent:
    def __init__(self, checkpointer: Any) -> None:
        self.checkpointer = checkpointer
        self.warnings: list[str] = []

        def plan(state: S) -> dict[str, Any]:
            answer = interrupt({"kind": "plan_approval", "question": "Run this plan: 1. search routes 2. report?",
                                "options": [{"id": "t1", "label": "search routes"}, {"id": "t2", "label": "report"}],
                                "default": {"approve": True}, "answer_schema": {"approve": "bool",
                                                                                 "feedback": "text"}})
            if not isinstance(answer, dict) or not isinstance(answer.get("approve"), bool):
                raise ValidationError("invalid_answer", f"a plan approval answer is {{\"approve\": bool}}, got {answer!r}")
            return {"plan": "approved" if answer["approve"] else "revised: " + str(answer.get("feedback", ""))}

        def choose(state: S) -> dict[str, Any]:
            answer = interrupt({"kind": "route_choice", "question": "Which route should I follow?", "options": ROUTES,
                                "default": {"route": 0}, "answer_schema": {"route": "0-based index"}})
            idx = answer.get("route") if isinstance(answer, dict) else None
            if not isinstance(idx, int) or not 0 <= idx < len(ROUTES):
                raise ValidationError("invalid_answer", f"choose a route 0..{len(ROUTES) - 1}, got {answer!r}")
            return {"route": idx}

        def answer(state: S) -> dict[str, Any]:
            text = f"Plan {state.get('plan')}; following route {state['route'] + 1}: {ROUTES[state['route']]['label']}"
            return {"final_answer": text, "messages": [AIMessage(content=text)]}

        g = StateGraph(S)
        g.add_node("planner", plan)
        g.add_node("choose_route", choose)
        g.add_node("answer", answer)
        g.add_edge(START, "planner")
        g.add_edge("planner", "choose_route")
        g.add_edge("choose_route", "answer")
        g.add_edge("answer", END)
        self.graph = g.compile(checkpointer=checkpointer)

    def _cfg(self, thread_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread_id}}

    def _result(self, thread_id: str) -> dict[str, Any]:
        snap = self.graph.get_state(self._cfg(thread_id))
        if snap.interrupts:
            return {"status": "interrupted", "thread_id": thread_id, "interrupt": snap.interrupts[0].value}
        return {**snap.values, "thread_id": thread_id}

    def _run(self, graph_input: Any, thread_id: str) -> dict[str, Any]:
        try:
            self.graph.invoke(graph_input, self._cfg(thread_id))
        except ValidationError:
            raise
        return self._result(thread_id)

    def invoke(self, user_query: str, state: Any = None, files: Any = None, config: Any = None, *,
               thread_id: str | None = None, options: Any = None) -> dict[str, Any]:
        return self._run({"messages": [HumanMessage(content=user_query)], "user_query": user_query}, thread_id)

    def resume(self, thread_id: str, answer: Any = None, config: Any = None) -> dict[str, Any]:
        if not self.graph.get_state(self._cfg(thread_id)).values:
            raise ValidationError("unknown_thread", f"no run is stored under thread id {thread_id!r}")
        return self._run(Command(resume=answer) if answer is not None else None, thread_id)

    def _events(self, graph_input: Any, thread_id: str):
        for chunk in self.graph.stream(graph_input, self._cfg(thread_id), stream_mode="updates"):
            for node in chunk:
                if node == "__interrupt__":
                    continue
                yield {"event": "node_start", "node": node}
                yield {"event": "progress", "node": node, "stage": "done", "expansions": 1}
                yield {"event": "node_end", "node": node}
        result = self._result(thread_id)
        if result.get("status") == "interrupted":
            yield {"event": "interrupt", "thread_id": thread_id, "interrupt": result["interrupt"]}
        else:
            yield {"event": "final", "query": result.get("user_query", ""), "thread_id": thread_id,
                   "final_answer": result.get("final_answer", ""), "results": {}, "report_paths": [], "errors": []}

    def stream(self, user_query: str, state: Any = None, files: Any = None, config: Any = None, options: Any = None,
               thread_id: str | None = None):
        return self._events({"messages": [HumanMessage(content=user_query)], "user_query": user_query}, thread_id)

    def stream_resume(self, thread_id: str, answer: Any = None):
        return self._events(Command(resume=answer) if answer is not None else None, thread_id)

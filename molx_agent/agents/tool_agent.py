"""ToolAgent: a ReAct loop (LangGraph ``ToolNode``) over the registry's tools allowed to ``tool_agent``.

With an LLM the model is bound to the tools (``bind_tools``) and decides the calls.  In rules mode a
deterministic policy plays the model: it calls the tool named in ``inputs["tool"]`` (or mentioned in the
query, or the best keyword match), fills its arguments from ``inputs["tool_args"]`` or from the task's
SMILES/names/query, then answers with what the tool returned.  Async-only tools (MCP) are given a
synchronous twin so the loop can run from synchronous code; the async path awaits them natively.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import uuid
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.modules.llm import LLMUnavailable, invoke_messages, llm_available, message_text
from molx_agent.agents.modules.prompts import TOOL_AGENT_SYSTEM_PROMPT
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import ExecutionError, ValidationError

logger = logging.getLogger(__name__)

MAX_STEPS = 12


class ToolLoopState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def run_coroutine_sync(coro: Any) -> Any:
    """Run ``coro`` to completion from synchronous code, even when an event loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def ensure_sync_tool(tool: Any) -> Any:
    """Give an async-only ``StructuredTool`` a synchronous ``func`` that runs its coroutine."""
    from langchain_core.tools import StructuredTool

    if isinstance(tool, StructuredTool) and tool.func is None and tool.coroutine is not None:
        coroutine = tool.coroutine

        def _sync(*args: Any, **kwargs: Any) -> Any:
            return run_coroutine_sync(coroutine(*args, **kwargs))

        tool.func = _sync
    return tool


def _tool_fields(tool: Any) -> tuple[dict[str, Any], set[str]]:
    schema = tool.tool_call_schema
    if isinstance(schema, dict):
        js = schema
    else:
        js = schema.model_json_schema()
    return js.get("properties", {}) or {}, set(js.get("required", []) or [])


def fill_tool_args(tool: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Arguments for ``tool`` from the task inputs; raises ValidationError when a required one is unknown."""
    given = inputs.get("tool_args")
    if isinstance(given, dict) and given:
        return dict(given)
    props, required = _tool_fields(tool)
    smiles = list(inputs.get("smiles") or [])
    names = list(inputs.get("names") or [])
    reactions = list(inputs.get("reaction_smiles") or [])
    args: dict[str, Any] = {}
    for field in props:
        low = field.lower()
        if any(k in low for k in ("smiles", "molecule", "mol", "structure", "target")) and smiles:
            args[field] = smiles[0]
        elif "reaction" in low and reactions:
            args[field] = reactions[0]
        elif "name" in low and names:
            args[field] = names[0]
        elif low in ("query", "text", "question", "prompt") and inputs.get("query"):
            args[field] = inputs["query"]
    missing = sorted(required - set(args))
    if missing:
        raise ValidationError("tool_args_missing", f"cannot fill argument(s) {', '.join(missing)} of tool {tool.name!r}",
                              value=tool.name, hint="pass inputs['tool_args'] or put a SMILES/name in the query")
    return args


def choose_tool(tools: list[Any], inputs: dict[str, Any]) -> Any:
    """Deterministic tool choice: explicit name > name mentioned in the query > keyword overlap."""
    by_name = {t.name: t for t in tools}
    wanted = inputs.get("tool")
    if wanted:
        if wanted not in by_name:
            raise ValidationError("unknown_tool", f"tool {wanted!r} is not available to the tool agent",
                                  value=wanted, hint=f"available: {', '.join(sorted(by_name))}")
        return by_name[wanted]
    query = (inputs.get("query") or "").lower()
    for name, tool in by_name.items():
        if re.search(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", query):
            return tool
    words = set(re.findall(r"[a-z]{3,}", query))
    scored = sorted(
        ((len(words & set(re.findall(r"[a-z]{3,}", f"{t.name.replace('_', ' ')} {t.description}".lower()))), t.name)
         for t in tools),
        reverse=True,
    )
    if not scored or scored[0][0] == 0:
        raise ValidationError("no_matching_tool", "no tool matches the request", value=inputs.get("query"),
                              hint=f"name one of: {', '.join(sorted(by_name))}")
    return by_name[scored[0][1]]


class RulesToolPolicy:
    """Plays the chat model in rules mode: one tool call, then an answer quoting the tool output."""

    def __init__(self, tools: list[Any], inputs: dict[str, Any], language: str = "en") -> None:
        self.tools = tools
        self.inputs = inputs
        self.language = language

    def __call__(self, messages: list[AnyMessage]) -> AIMessage:
        outputs = [m for m in messages if isinstance(m, ToolMessage)]
        if not outputs:
            tool = choose_tool(self.tools, self.inputs)
            args = fill_tool_args(tool, self.inputs)
            call = {"name": tool.name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
            return AIMessage(content="", tool_calls=[call])
        parts = []
        for m in outputs:
            text = message_text(m)
            try:
                text = json.dumps(json.loads(text), ensure_ascii=False)
            except (json.JSONDecodeError, TypeError):
                pass
            head = f"工具 {m.name} 返回" if self.language == "zh" else f"Tool {m.name} returned"
            parts.append(f"{head}: {text[:4000]}")
        return AIMessage(content="\n".join(parts))


def build_tool_loop(tools: list[Any], model: Any) -> Any:
    """Compile the agent <-> tools loop. ``model`` is a callable messages -> AIMessage."""
    graph = StateGraph(ToolLoopState)

    def agent(state: ToolLoopState) -> dict[str, Any]:
        return {"messages": [model(state["messages"])]}

    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools, handle_tool_errors=True))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "agent")
    return graph.compile()


class ToolAgent(BaseAgent):
    """Worker ``tool_agent``."""

    name = "tool_agent"
    description = "ReAct loop over the registered tools"
    option_keys = ()

    def _tools(self) -> list[Any]:
        tools = self.tools
        if not tools:
            registry = self.options.get("registry")
            if registry is None:
                from molx_agent.agents.modules.tools import get_registry

                registry = get_registry()
            tools = registry.get_tools(agent="tool_agent")
        return [ensure_sync_tool(t) for t in tools]

    def _model(self, tools: list[Any], inputs: dict[str, Any], lang: str) -> Any:
        rules = RulesToolPolicy(tools, inputs, lang)
        if self.llm is None or not llm_available(self.llm):
            return rules
        bound = self.llm.bind_tools(tools)
        system = SystemMessage(content=TOOL_AGENT_SYSTEM_PROMPT.format(
            language_name="Chinese" if lang == "zh" else "English"))
        llm = self.llm

        def model(messages: list[AnyMessage]) -> AIMessage:
            if llm_available(llm):
                try:
                    return invoke_messages(bound, [system, *messages], what="tool agent")
                except LLMUnavailable as exc:  # down, timeout, 5xx: the rules policy finishes the loop
                    logger.info("%s; the rules tool policy takes over", exc)
            return rules(messages)

        return model

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        inputs = task.get("inputs") or {}
        lang = state.get("language", "en")
        tools = self._tools()
        if not tools:
            raise ExecutionError("no_tools", "no tool is registered for the tool agent")
        loop = build_tool_loop(tools, self._model(tools, inputs, lang))
        query = inputs.get("query") or state.get("user_query", "")
        out = loop.invoke({"messages": [HumanMessage(content=query)]}, {"recursion_limit": MAX_STEPS * 2})
        return _loop_result(out["messages"])

    async def arun_task(self, task: Task, state: AgentState) -> dict[str, Any]:
        """Async variant (awaits async tools natively)."""
        inputs = task.get("inputs") or {}
        lang = state.get("language", "en")
        tools = self._tools()
        loop = build_tool_loop(tools, self._model(tools, inputs, lang))
        out = await loop.ainvoke({"messages": [HumanMessage(content=inputs.get("query", ""))]},
                                 {"recursion_limit": MAX_STEPS * 2})
        return _loop_result(out["messages"])


def _loop_result(messages: list[AnyMessage]) -> dict[str, Any]:
    calls: list[dict[str, Any]] = []
    outputs = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    for m in messages:
        if isinstance(m, AIMessage):
            for c in m.tool_calls:
                out = outputs.get(c["id"] or "")
                text = message_text(out) if out is not None else None
                try:
                    parsed: Any = json.loads(text) if text else None
                except (json.JSONDecodeError, TypeError):
                    parsed = text
                calls.append({"tool": c["name"], "args": c["args"], "output": parsed,
                              "status": getattr(out, "status", None) if out is not None else "missing"})
    final = next((message_text(m) for m in reversed(messages) if isinstance(m, AIMessage) and not m.tool_calls), "")
    failed = [c for c in calls if c["status"] == "error"]
    if calls and len(failed) == len(calls):
        raise ExecutionError("tool_error", f"tool {failed[0]['tool']} failed: {str(failed[0]['output'])[:500]}",
                             value=failed[0]["tool"])
    return {"tool_calls": calls, "answer": final, "summary": final}


__all__ = ["ToolAgent", "RulesToolPolicy", "build_tool_loop", "choose_tool", "fill_tool_args",
           "ensure_sync_tool", "run_coroutine_sync"]

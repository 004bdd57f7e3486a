"""MolxAgent (the orchestrator) and ChatSession (multi-turn, persisted in SQLite under MOLX_HOME)."""

from __future__ import annotations

import logging
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.intent_classifier import IntentClassifierAgent
from molx_agent.agents.modules.graph import MolxGraphNodes, build_graph
from molx_agent.agents.modules.llm import get_llm, llm_failure
from molx_agent.agents.modules.state import AgentState
from molx_agent.agents.planner import PlannerAgent
from molx_agent.agents.workers import get_worker
from molx_agent.config import Settings, get_settings
from molx_agent.errors import ConfigError
from molx_agent.limits import check_query

logger = logging.getLogger(__name__)

_AUTO = object()
RECURSION_LIMIT = 100


def fresh_turn_state(user_query: str, files: list[str] | None = None) -> dict[str, Any]:
    """Input of one turn: the per-turn fields are reset, ``messages`` gets the user's message."""
    return {
        "messages": [HumanMessage(content=user_query)],
        "user_query": user_query,
        "input_files": [str(f) for f in (files or [])],
        "tasks": {},
        "results": {},
        "reflection": {},
        "iteration": 0,
        "current_task_id": None,
        "final_answer": "",
        "final_response": "",
        "report_paths": [],
        "errors": [],
    }


class MolxAgent:
    """The molx-agent orchestrator.

    Every component can be injected: ``llm`` (a chat model, ``None`` for rules mode, or left out to use
    ``get_llm(settings)``), ``classifier``, ``planner``, ``workers`` (task type -> worker instance; the
    rest come from ``WORKER_CLASSES``), ``tools`` (for the tool agent; default: the registry's), and
    ``checkpointer`` (LangGraph saver for multi-turn state).  ``load_mcp`` (default ``settings.mcp_enabled``)
    loads MCP tools into the registry; a server that fails only adds a warning to :attr:`warnings`.
    """

    def __init__(
        self,
        llm: Any = _AUTO,
        *,
        settings: Settings | None = None,
        classifier: Any = None,
        planner: Any = None,
        workers: dict[str, BaseAgent] | None = None,
        tools: list[Any] | None = None,
        checkpointer: Any = None,
        load_mcp: bool | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.llm = get_llm(self.settings) if llm is _AUTO else llm
        self.warnings: list[str] = []
        if self.llm is None and self.settings.llm_provider == "auto" and (
            self.settings.openai_api_key or self.settings.openai_base_url
        ):
            self.warnings.append("LLM endpoint not reachable; running in the offline rules mode")
        if load_mcp if load_mcp is not None else self.settings.mcp_enabled:
            self._load_mcp()
        self.tools = tools
        self.classifier = classifier or IntentClassifierAgent(llm=self.llm)
        tool_names = (lambda: [t.name for t in tools]) if tools is not None else self._registry_tool_names
        self.planner = planner or PlannerAgent(llm=self.llm, settings=self.settings, tool_names=tool_names)
        self.workers: dict[str, BaseAgent] = dict(workers or {})
        self.nodes = MolxGraphNodes(self.classifier, self.planner, self.get_worker)
        self.checkpointer = checkpointer
        self.graph = build_graph(self.nodes, checkpointer=checkpointer)

    def _registry_tool_names(self) -> list[str]:
        try:
            from molx_agent.agents.modules.tools import get_registry

            registry = get_registry()
            names = registry.get_tool_names(agent="tool_agent")
            self.warnings.extend(w for w in registry.warnings if w not in self.warnings)
            return names
        except Exception as exc:  # noqa: BLE001
            self.warnings.append(f"tool registry unavailable: {exc}")
            return []

    def _load_mcp(self) -> None:
        from molx_agent.agents.modules.mcp import MCPToolLoader
        from molx_agent.agents.modules.tools import get_registry

        loader = MCPToolLoader(settings=self.settings)
        try:
            loader.load_into(get_registry())
        except Exception as exc:  # noqa: BLE001 - MCP never stops the agent
            loader.warnings.append(f"MCP tools not loaded: {exc}")
        self.warnings.extend(loader.warnings)

    def get_worker(self, worker_type: str) -> BaseAgent:
        if worker_type not in self.workers:
            kwargs: dict[str, Any] = {"llm": self.llm, "settings": self.settings}
            if worker_type == "tool_agent" and self.tools is not None:
                kwargs["tools"] = self.tools
            self.workers[worker_type] = get_worker(worker_type, **kwargs)
        return self.workers[worker_type]

    # -- running -------------------------------------------------------------------------------
    def _config(self, config: dict[str, Any] | None) -> dict[str, Any]:
        cfg: dict[str, Any] = {"recursion_limit": RECURSION_LIMIT, **(config or {})}
        if self.checkpointer is not None and "thread_id" not in (cfg.get("configurable") or {}):
            cfg["configurable"] = {**(cfg.get("configurable") or {}), "thread_id": "default"}
        return cfg

    def run(self, state: AgentState, config: dict[str, Any] | None = None) -> AgentState:
        """Run the graph on a prepared state (``thread_id`` "default" when a checkpointer is set and none given)."""
        return self.graph.invoke(state, self._config(config))

    def invoke(self, user_query: str, state: AgentState | None = None, files: list[str] | None = None,
               config: dict[str, Any] | None = None) -> AgentState:
        """Answer one query; ``state`` (a previous result) carries the conversation forward."""
        _check_query(user_query)
        turn = fresh_turn_state(user_query, files)
        if state:
            turn = {**state, **turn, "messages": [*(state.get("messages") or []), *turn["messages"]]}
        result = self.run(turn, config)  # type: ignore[arg-type]
        return self.with_warnings(result)

    async def ainvoke(self, user_query: str, state: AgentState | None = None, files: list[str] | None = None,
                      config: dict[str, Any] | None = None) -> AgentState:
        """Async twin of :meth:`invoke` (same graph, same warnings)."""
        _check_query(user_query)
        turn = fresh_turn_state(user_query, files)
        if state:
            turn = {**state, **turn, "messages": [*(state.get("messages") or []), *turn["messages"]]}
        result = await self.graph.ainvoke(turn, self._config(config))
        return self.with_warnings(result)

    def current_warnings(self) -> list[str]:
        """Setup warnings (LLM fallback, MCP servers, tool loaders) plus an LLM that failed during the run."""
        warnings = list(self.warnings)
        reason = llm_failure(self.llm)
        if reason:
            warnings.append(f"the LLM endpoint failed ({reason}); the offline rules path answered instead")
        return warnings

    def with_warnings(self, result: AgentState) -> AgentState:
        """``result`` with every current warning appended to ``errors`` as ``{"code": "warning", ...}``."""
        warnings = self.current_warnings()
        if warnings:
            result["errors"] = [*result.get("errors", []), *({"code": "warning", "message": w} for w in warnings)]
        return result


def _check_query(user_query: str) -> None:
    """Not a string (``invalid_query``), empty (``empty_query``) or too long (``query_too_long``):
    ``ValidationError`` (``molx_agent.limits.check_query``)."""
    check_query(user_query)


class ChatSession:
    """A multi-turn conversation persisted by a LangGraph ``SqliteSaver`` in ``MOLX_HOME/chat.sqlite``.

    ``send(text)`` returns the turn's final state (``state["final_answer"]`` is the reply); ``history()``
    lists the messages; ``clear()`` forgets the session.  Reopening a session id in a new process resumes it.
    """

    def __init__(self, session_id: str | None = None, *, agent: MolxAgent | None = None,
                 settings: Settings | None = None, db_path: str | Path | None = None, **agent_kwargs: Any) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.settings = settings or (agent.settings if agent else get_settings())
        self.session_id = session_id or uuid.uuid4().hex[:12]
        self.db_path = Path(db_path) if db_path else self.settings.home_dir / "chat.sqlite"
        try:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.db_path), check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError("chat_db_unavailable",
                              f"cannot open the chat database {self.db_path}: {getattr(exc, 'strerror', None) or exc}",
                              value=str(self.db_path), hint="set MOLX_HOME to a writable folder") from None
        self.checkpointer = SqliteSaver(self._conn)
        try:
            self.checkpointer.setup()
        except sqlite3.DatabaseError as exc:  # e.g. "file is not a database"
            self._conn.close()
            raise ConfigError("chat_db_unavailable", f"the chat database {self.db_path} is unusable: {exc}",
                              value=str(self.db_path),
                              hint="move the file away (a new database is then created) or set MOLX_HOME") from None
        if agent is None:
            agent = MolxAgent(settings=self.settings, checkpointer=self.checkpointer, **agent_kwargs)
        else:
            agent.checkpointer = self.checkpointer
            agent.graph = build_graph(agent.nodes, checkpointer=self.checkpointer)
        self.agent = agent

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.session_id}, "recursion_limit": RECURSION_LIMIT}

    def exists(self) -> bool:
        """Whether this session id has a stored conversation (a new or cleared session has none)."""
        return self.checkpointer.get_tuple(self.config) is not None

    def send(self, text: str, files: list[str] | None = None) -> AgentState:
        _check_query(text)
        result = self.agent.graph.invoke(fresh_turn_state(text, files), self.config)
        return self.agent.with_warnings(result)

    def state(self) -> dict[str, Any]:
        snapshot = self.agent.graph.get_state(self.config)
        return dict(snapshot.values or {})

    def history(self) -> list[dict[str, str]]:
        """``[{"role": "user"|"assistant", "content": ...}]`` of this session, oldest first."""
        out = []
        for m in self.state().get("messages") or []:
            if isinstance(m, HumanMessage):
                out.append({"role": "user", "content": str(m.content)})
            elif isinstance(m, AIMessage):
                out.append({"role": "assistant", "content": str(m.content)})
        return out

    def clear(self) -> None:
        """Forget everything of this session."""
        self.checkpointer.delete_thread(self.session_id)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ChatSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def run_sar_agent(user_query: str, files: list[str] | None = None, *, llm: Any = _AUTO,
                  settings: Settings | None = None) -> AgentState:
    """One-shot entry point for scripts and servers (the seed's ``run_sar_agent``): a fresh MolxAgent answers."""
    return MolxAgent(llm=llm, settings=settings).invoke(user_query, files=files)


def list_sessions(settings: Settings | None = None) -> list[str]:
    """Session ids stored in ``MOLX_HOME/chat.sqlite``."""
    settings = settings or get_settings()
    path = settings.home_dir / "chat.sqlite"
    if not path.exists():
        return []
    with sqlite3.connect(str(path)) as conn:
        try:
            rows = conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
        except sqlite3.OperationalError:
            return []
    return [r[0] for r in rows]


__all__ = ["MolxAgent", "ChatSession", "fresh_turn_state", "list_sessions", "run_sar_agent"]

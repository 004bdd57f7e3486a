"""MolxAgent (the orchestrator) and ChatSession (multi-turn, persisted in SQLite under MOLX_HOME)."""

from __future__ import annotations

import logging
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.intent_classifier import IntentClassifierAgent
from molx_agent.agents.modules.graph import MolxGraphNodes, build_graph
from molx_agent.agents.modules.llm import get_llm, guarded, llm_failure
from molx_agent.agents.modules.state import AgentState, replace
from molx_agent.agents.planner import TASK_DESCRIPTIONS, PlannerAgent
from molx_agent.agents.recorder import SessionRecorder
from molx_agent.agents.workers import WORKER_CLASSES, get_worker, load_worker_class
from molx_agent.config import Settings, get_settings
from molx_agent.errors import ConfigError, ValidationError
from molx_agent.limits import check_query

logger = logging.getLogger(__name__)

_AUTO = object()
RECURSION_LIMIT = 200
#: Keys of a returned state that are not graph state (stripped when a state is passed back in).
_NOT_STATE = ("thread_id", "status", "interrupt", "__interrupt__")
#: Run options that may stop the run to ask the chemist (they need a checkpointer to resume).
INTERRUPT_OPTIONS = ("confirm_plan", "choose_route", "ask")
#: LangGraph stream modes behind :meth:`MolxAgent.stream` (task start/end, worker progress, state).
STREAM_MODES = ["tasks", "custom", "values"]


def new_thread_id() -> str:
    """A fresh thread id (never a shared ``"default"``)."""
    return uuid.uuid4().hex[:16]


def fresh_turn_state(user_query: str, files: list[str] | None = None,
                     options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Input of one turn: the per-turn fields are reset, ``messages`` gets the user's message."""
    return {
        "messages": [HumanMessage(content=user_query)],
        "user_query": user_query,
        "input_files": [str(f) for f in (files or [])],
        "options": dict(options or {}),
        "follow_up": False,
        "plan_feedback": [],
        "plan_approved": None,
        "tasks": replace({}),
        "results": replace({}),
        "reflection": {},
        "reflections": replace([]),
        "plan_history": replace([]),
        "iteration": 0,
        "current_task_id": None,
        "final_answer": "",
        "final_response": "",
        "report_paths": [],
        "errors": replace([]),
    }


class MolxAgent:
    """The molx-agent orchestrator.

    Every component can be injected: ``llm`` (a chat model, ``None`` for rules mode, or left out to use
    ``get_llm(settings)``), ``classifier``, ``planner``, ``workers`` (task type -> worker instance; built-in types
    come from ``WORKER_CLASSES``; any other key is a custom worker type plans may use), ``tools`` (for the tool agent;
    default: this agent's view of the tool registry), ``engine`` (the
    :class:`~molx_agent.retro.engine.RetroEngine` every retrosynthesis worker uses; default: built from the settings
    at first use), ``checkpointer`` (LangGraph saver: every turn runs on a thread id) and ``search_workers`` (processes
    for several targets' searches).  ``load_mcp`` (default ``settings.mcp_enabled``) loads MCP tools into this
    agent's own registry view (never into the shared registry); a server that fails only adds a warning.
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
        engine: Any = None,
        search_workers: int | None = None,
    ) -> None:
        from molx_agent.agents.modules.tools import get_registry

        self.settings = settings or get_settings()
        self.llm = get_llm(self.settings) if llm is _AUTO else llm
        self.warnings: list[str] = []
        if self.llm is None and self.settings.llm_provider == "auto" and (
            self.settings.openai_api_key or self.settings.openai_base_url
        ):
            self.warnings.append("LLM endpoint not reachable; running in the offline rules mode")
        self.registry = get_registry().scoped()
        if load_mcp if load_mcp is not None else self.settings.mcp_enabled:
            self._load_mcp()
        if self.llm is not None:
            # tools that read columns with an LLM get this agent's model, under the one timeout/backoff policy
            self.registry.inject_llm(guarded(self.llm, "tool"))
        if engine is not None:
            self.registry.bind_engine(engine)  # the skill tools search with this agent's engine
        self.tools = tools
        self._engine = engine
        self.search_workers = search_workers
        self._lock = threading.RLock()
        self.classifier = classifier or IntentClassifierAgent(llm=self.llm)
        tool_names = (lambda: [t.name for t in tools]) if tools is not None else self._registry_tool_names
        self.workers: dict[str, BaseAgent] = dict(workers or {})
        self.planner = planner or PlannerAgent(llm=self.llm, settings=self.settings, tool_names=tool_names,
                                               worker_catalog=self.worker_catalog)
        self.nodes = MolxGraphNodes(self.classifier, self.planner, self.get_worker, llm=self.llm)
        self.checkpointer = checkpointer
        self.graph = build_graph(self.nodes, checkpointer=checkpointer)

    # -- components ----------------------------------------------------------------------------
    @property
    def engine(self) -> Any:
        """The retrosynthesis engine (built lazily: a molecule question never loads the model): the process-wide default
        engine unless these settings change what it is built from (:data:`ENGINE_SETTINGS`)."""
        with self._lock:
            if self._engine is None:
                from molx_agent.retro.engine import RetroEngine, default_engine

                same = _engine_settings(self.settings) == _engine_settings(get_settings())
                self._engine = default_engine() if same else RetroEngine.from_settings(self.settings)
            return self._engine

    def _registry_tool_names(self) -> list[str]:
        try:
            names = self.registry.get_tool_names(agent="tool_agent")
            self.warnings.extend(w for w in self.registry.all_warnings() if w not in self.warnings)
            return names
        except Exception as exc:  # noqa: BLE001
            self.warnings.append(f"tool registry unavailable: {exc}")
            return []

    def _load_mcp(self) -> None:
        from molx_agent.agents.modules.mcp import MCPToolLoader

        loader = MCPToolLoader(settings=self.settings)
        try:
            loader.load_into(self.registry)
        except Exception as exc:  # noqa: BLE001 - MCP never stops the agent
            loader.warnings.append(f"MCP tools not loaded: {exc}")
        self.warnings.extend(loader.warnings)

    def register_worker(self, worker_type: str, worker: BaseAgent) -> None:
        """Add (or replace) the worker of ``worker_type``; a new type becomes available to plans."""
        with self._lock:
            self.workers[worker_type] = worker

    def worker_catalog(self) -> dict[str, dict[str, Any]]:
        """Worker type -> ``{"description", "option_keys"}`` for the planner (built-in and custom types)."""
        out: dict[str, dict[str, Any]] = {}
        for wt in WORKER_CLASSES:
            try:
                cls = load_worker_class(wt)
            except Exception:  # noqa: BLE001 - a broken worker is reported when it runs
                cls = None
            out[wt] = {"description": TASK_DESCRIPTIONS.get(wt) or getattr(cls, "description", ""),
                       "option_keys": tuple(getattr(cls, "option_keys", ()) or ())}
        for wt, worker in self.workers.items():
            if wt not in out:
                out[wt] = {"description": getattr(worker, "description", "") or wt,
                           "option_keys": tuple(getattr(worker, "option_keys", ()) or ())}
        return out

    def get_worker(self, worker_type: str) -> BaseAgent:
        with self._lock:
            if worker_type not in self.workers:
                kwargs: dict[str, Any] = {"llm": self.llm, "settings": self.settings,
                                          "engine_factory": lambda: self.engine}
                if worker_type == "tool_agent":
                    kwargs["tools"] = self.tools if self.tools is not None else None
                    kwargs["registry"] = self.registry
                if worker_type == "disconnection" and self.search_workers is not None:
                    kwargs["search_workers"] = self.search_workers
                self.workers[worker_type] = get_worker(worker_type, **kwargs)
            return self.workers[worker_type]

    # -- running -------------------------------------------------------------------------------
    def _config(self, config: dict[str, Any] | None, thread_id: str | None = None) -> dict[str, Any]:
        cfg: dict[str, Any] = {"recursion_limit": RECURSION_LIMIT, **(config or {})}
        configurable = dict(cfg.get("configurable") or {})
        if thread_id:
            configurable["thread_id"] = thread_id
        configurable.setdefault("thread_id", new_thread_id())
        cfg["configurable"] = configurable
        return cfg

    def _durability(self) -> str | None:
        return "sync" if self.checkpointer is not None else None

    def _ensure_checkpointer(self, options: dict[str, Any] | None) -> None:
        """A run that may stop to ask the chemist needs a checkpointer: without one, an in-memory saver (the thread
        resumes in this process only)."""
        if self.checkpointer is None and any((options or {}).get(k) for k in INTERRUPT_OPTIONS):
            from langgraph.checkpoint.memory import InMemorySaver

            with self._lock:
                if self.checkpointer is None:
                    self.checkpointer = InMemorySaver()
                    self.graph = build_graph(self.nodes, checkpointer=self.checkpointer)

    def _finish(self, result: Any, cfg: dict[str, Any]) -> AgentState:
        """The returned state of a run: ``thread_id``; when the graph stopped at an interrupt, ``status``
        ``"interrupted"`` and ``interrupt`` (the question); a finished thread is compacted."""
        result = dict(result or {})
        thread_id = cfg["configurable"]["thread_id"]
        result["thread_id"] = thread_id
        pending = result.pop("__interrupt__", None)
        if pending:
            from molx_agent.agents.modules.state import to_jsonable

            result["status"] = "interrupted"
            result["interrupt"] = to_jsonable(getattr(pending[0], "value", pending[0]))
            return self.with_warnings(result)  # type: ignore[arg-type]
        if self.checkpointer is not None:
            compact_thread(self.checkpointer, thread_id)
        return self.with_warnings(result)  # type: ignore[arg-type]

    def _run(self, graph_input: Any, cfg: dict[str, Any]) -> AgentState:
        result = self.graph.invoke(graph_input, cfg, durability=self._durability())
        return self._finish(result, cfg)

    def run(self, state: AgentState, config: dict[str, Any] | None = None, *,
            thread_id: str | None = None) -> AgentState:
        """Run the graph on a prepared state (a fresh thread id unless one is given)."""
        self._ensure_checkpointer(state.get("options"))
        return self._run(state, self._config(config, thread_id))

    def _turn(self, user_query: str, state: AgentState | None, files: list[str] | None,
              options: dict[str, Any] | None) -> dict[str, Any]:
        _check_query(user_query)
        turn = fresh_turn_state(user_query, files, options)
        if state:
            prev = {k: v for k, v in state.items() if k not in _NOT_STATE}
            turn = {**prev, **turn, "messages": [*(prev.get("messages") or []), *turn["messages"]]}
        return turn

    def invoke(self, user_query: str, state: AgentState | None = None, files: list[str] | None = None,
               config: dict[str, Any] | None = None, options: dict[str, Any] | None = None, *,
               thread_id: str | None = None) -> AgentState:
        """Answer one query.

        ``thread_id``: the conversation (with a checkpointer, earlier turns of that thread are the context); a fresh
        id when none is given.  ``state`` (a previous result) carries a conversation forward without a
        checkpointer.  ``options``: run options (``search_time``: the first route search's time limit in seconds;
        ``confirm_plan``, ``choose_route``, ``ask``: stop to ask the chemist, see :mod:`molx_agent.agents.interrupts`;
        ``retro_mode``).  The returned state has ``thread_id``; when the run stopped at a question it also has
        ``"status": "interrupted"`` and ``interrupt`` (the question), and :meth:`resume` continues it.
        """
        turn = self._turn(user_query, state, files, options)
        self._ensure_checkpointer(options)
        return self._run(turn, self._config(config, thread_id))

    async def ainvoke(self, user_query: str, state: AgentState | None = None, files: list[str] | None = None,
                      config: dict[str, Any] | None = None, options: dict[str, Any] | None = None, *,
                      thread_id: str | None = None) -> AgentState:
        """Async twin of :meth:`invoke` (same graph, same warnings, same interrupts)."""
        turn = self._turn(user_query, state, files, options)
        self._ensure_checkpointer(options)
        cfg = self._config(config, thread_id)
        result = await self.graph.ainvoke(turn, cfg, durability=self._durability())
        return self._finish(result, cfg)

    def _resume_input(self, thread_id: str, answer: Any, config: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        """``(graph input, config)`` to continue ``thread_id``; the input is ``_DONE`` plus the stored state when the
        thread has nothing left to run.  Errors: ``no_checkpointer``, ``unknown_thread``, ``no_pending_question``,
        ``invalid_answer`` (the thread is untouched and stays resumable)."""
        from molx_agent.agents.interrupts import check_answer

        if isinstance(answer, dict) and config is None and isinstance(answer.get("configurable"), dict):
            answer, config = None, answer  # the former resume(thread_id, config) call
        if self.checkpointer is None:
            raise ConfigError("no_checkpointer", "resuming a run needs a checkpointer",
                              hint="build MolxAgent(checkpointer=SqliteSaver(...))")
        thread_id = str(thread_id or "").strip()
        if not thread_id:
            raise ValidationError("unknown_thread", "no thread id given", value=thread_id)
        cfg = self._config(config, thread_id)
        snapshot = self.graph.get_state(cfg)
        if not snapshot.values:
            raise ValidationError("unknown_thread", f"no run is stored under thread id {thread_id!r}",
                                  value=thread_id)
        pending = list(snapshot.interrupts or ())
        if answer is None:
            if not snapshot.next:
                return (_DONE, dict(snapshot.values)), cfg
            if pending:  # still waiting for the chemist: ask again (nothing re-runs)
                return (_ASK, {**snapshot.values, "__interrupt__": pending}), cfg
            return None, cfg
        if not pending:
            raise ValidationError("no_pending_question", f"the run {thread_id!r} is not waiting for an answer",
                                  value=thread_id, hint="resume it without an answer to continue it")
        from langgraph.types import Command

        value = check_answer(pending[0].value, answer)  # ValidationError("invalid_answer"): nothing is changed
        return Command(resume={pending[0].id: value}), cfg

    def resume(self, thread_id: str, answer: Any = None, config: dict[str, Any] | None = None) -> AgentState:
        """Continue the run of ``thread_id`` from its last checkpoint, e.g. in a new process.

        Without ``answer``: a run that crashed or was killed goes on; a finished run returns its stored result; a run
        waiting for the chemist returns the question again.  With ``answer``: the pending question is answered
        (LangGraph ``Command(resume=...)``); an invalid answer raises ``ValidationError("invalid_answer")`` and the
        run still waits.  (A LangGraph config passed as second argument is accepted, as before.)
        """
        graph_input, cfg = self._resume_input(thread_id, answer, config)
        if isinstance(graph_input, tuple) and graph_input[0] in (_DONE, _ASK):
            return self._finish(graph_input[1], cfg)
        return self._run(graph_input, cfg)

    # -- streaming -----------------------------------------------------------------------------
    def stream(self, user_query: str, state: AgentState | None = None, files: list[str] | None = None,
               config: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
               thread_id: str | None = None) -> Iterator[dict[str, Any]]:
        """:meth:`invoke` as a stream of event dicts (each has ``event``): ``node_start`` / ``node_end`` (``node``;
        a ``work`` node also names ``task_id`` and ``worker``), ``progress`` (a worker's progress: route search
        expansions and routes found, SAR stages), ``interrupt`` (``thread_id``, ``interrupt``) and last ``final``
        (:func:`run_document` of the returned state: what ``run --json`` prints)."""
        turn = self._turn(user_query, state, files, options)  # a bad query raises here, before any event
        self._ensure_checkpointer(options)
        return self._events(turn, self._config(config, thread_id))

    def stream_resume(self, thread_id: str, answer: Any = None,
                      config: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """:meth:`resume` as a stream of events (same events as :meth:`stream`); an unknown thread or an invalid
        answer raises here, before any event."""
        graph_input, cfg = self._resume_input(thread_id, answer, config)
        if isinstance(graph_input, tuple) and graph_input[0] in (_DONE, _ASK):
            return self._closing_events(self._finish(graph_input[1], cfg))
        return self._events(graph_input, cfg)

    def _events(self, graph_input: Any, cfg: dict[str, Any]) -> Iterator[dict[str, Any]]:
        last: Any = None
        for mode, chunk in self.graph.stream(graph_input, cfg, stream_mode=STREAM_MODES,
                                             durability=self._durability()):
            if mode == "values":
                last = chunk
            elif mode == "custom":
                if isinstance(chunk, dict) and chunk.get("event"):
                    yield chunk
            elif mode == "tasks" and isinstance(chunk, dict):
                yield _task_event(chunk)
        if last is None:  # nothing ran (e.g. a finished thread): its stored state
            last = dict(self.graph.get_state(cfg).values or {}) if self.checkpointer is not None else {}
        yield from self._closing_events(self._finish(last, cfg))

    @staticmethod
    def _closing_events(result: AgentState) -> Iterator[dict[str, Any]]:
        if result.get("status") == "interrupted":
            yield {"event": "interrupt", "thread_id": result["thread_id"], "interrupt": result["interrupt"]}
        yield {"event": "final", **run_document(result)}

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


_DONE = "done"
_ASK = "ask"


def _task_event(chunk: dict[str, Any]) -> dict[str, Any]:
    """A LangGraph ``tasks`` stream chunk as a ``node_start`` / ``node_end`` event."""
    node = chunk.get("name")
    if "input" in chunk:  # a task starts
        event: dict[str, Any] = {"event": "node_start", "node": node}
        data = chunk.get("input")
        if node == "work" and isinstance(data, dict):
            tid = data.get("current_task_id")
            event["task_id"] = tid
            event["worker"] = ((data.get("tasks") or {}).get(tid) or {}).get("type")
        return event
    event = {"event": "node_end", "node": node}
    result = chunk.get("result")
    if node == "work" and isinstance(result, dict):
        for tid, task in (result.get("tasks") or {}).items():
            event.update(task_id=tid, worker=task.get("type"), status=task.get("status"))
    if chunk.get("error") is not None:
        event["error"] = f"{type(chunk['error']).__name__}: {chunk['error']}"
    if chunk.get("interrupts"):
        event["interrupted"] = True
    return event


def run_document(state: dict[str, Any], query: str | None = None) -> dict[str, Any]:
    """The JSON document of a run (``run --json``, the ``final`` stream event): for a run stopped at a question
    ``{"status": "interrupted", "thread_id", "interrupt", "query"}``, else the answer with its tasks, results,
    plans, reflections and errors (``status`` ``"done"``)."""
    query = state.get("user_query", "") if query is None else query
    if state.get("status") == "interrupted":
        return {"status": "interrupted", "thread_id": state.get("thread_id"), "interrupt": state.get("interrupt"),
                "query": query}
    return {
        "status": "done",
        "query": query,
        "thread_id": state.get("thread_id"),
        "intent": state.get("intent"),
        "intent_confidence": state.get("intent_confidence"),
        "intent_reasoning": state.get("intent_reasoning", []),
        "language": state.get("language", "en"),
        "tasks": state.get("tasks", {}),
        "results": state.get("results", {}),
        "plan_history": state.get("plan_history", []),
        "reflection": state.get("reflections", []),
        "iterations": state.get("iteration", 0),
        "final_answer": state.get("final_answer", ""),
        "report_paths": state.get("report_paths", []),
        "errors": state.get("errors", []),
    }


#: Settings the retrosynthesis engine is built from (others, such as the output folder, do not change it).
ENGINE_SETTINGS = ("retro_stock",)


def _engine_settings(settings: Settings) -> tuple[Any, ...]:
    return tuple(getattr(settings, k, None) for k in ENGINE_SETTINGS)


def _check_query(user_query: str) -> None:
    """Not a string (``invalid_query``), empty (``empty_query``) or too long (``query_too_long``):
    ``ValidationError`` (``molx_agent.limits.check_query``)."""
    check_query(user_query)


def compact_thread(saver: Any, thread_id: str) -> int:
    """Drop the intermediate checkpoints of a finished turn of ``thread_id`` in a ``SqliteSaver`` (each one holds a
    copy of every result), keeping the latest, which holds the whole state; returns the rows deleted.

    Only a thread whose latest checkpoint has nothing left to run is compacted (an interrupted run keeps every
    checkpoint, so it resumes).  Other checkpointers are left as they are.
    """
    conn = getattr(saver, "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        return 0
    latest = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    if latest is None or (latest.pending_writes or []) or (latest.metadata or {}).get("source") == "input":
        return 0
    keep = latest.config["configurable"]["checkpoint_id"]
    with getattr(saver, "lock", threading.Lock()):
        cur = conn.execute("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id != ?", (thread_id, keep))
        deleted = cur.rowcount
        conn.execute("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id != ?", (thread_id, keep))
        conn.commit()
    return deleted


def open_sqlite_saver(db_path: str | Path) -> tuple[Any, sqlite3.Connection]:
    """A ``SqliteSaver`` on ``db_path`` (created) and its connection; a clear ``ConfigError`` when impossible."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = Path(db_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError("chat_db_unavailable",
                          f"cannot open the chat database {path}: {getattr(exc, 'strerror', None) or exc}",
                          value=str(path), hint="set MOLX_HOME to a writable folder") from None
    saver = SqliteSaver(conn)
    try:
        saver.setup()
    except sqlite3.DatabaseError as exc:  # e.g. "file is not a database"
        conn.close()
        raise ConfigError("chat_db_unavailable", f"the chat database {path} is unusable: {exc}",
                          value=str(path),
                          hint="move the file away (a new database is then created) or set MOLX_HOME") from None
    return saver, conn


class ChatSession:
    """A multi-turn conversation persisted by a LangGraph ``SqliteSaver`` in ``MOLX_HOME/chat.sqlite``.

    ``send(text)`` returns the turn's final state (``state["final_answer"]`` is the reply); ``history()``
    lists the messages; ``clear()`` forgets the session.  Reopening a session id in a new process resumes it.
    Every turn is also logged by a :class:`SessionRecorder` (``recorder``; ``MOLX_HOME/sessions/<id>.jsonl``).
    """

    def __init__(self, session_id: str | None = None, *, agent: MolxAgent | None = None,
                 settings: Settings | None = None, db_path: str | Path | None = None,
                 recorder: SessionRecorder | None = None, **agent_kwargs: Any) -> None:
        self.settings = settings or (agent.settings if agent else get_settings())
        self.session_id = session_id or new_thread_id()
        self.db_path = Path(db_path) if db_path else self.settings.home_dir / "chat.sqlite"
        self.checkpointer, self._conn = open_sqlite_saver(self.db_path)
        if agent is None:
            agent = MolxAgent(settings=self.settings, checkpointer=self.checkpointer, **agent_kwargs)
        else:
            agent.checkpointer = self.checkpointer
            agent.graph = build_graph(agent.nodes, checkpointer=self.checkpointer)
        self.agent = agent
        self.recorder = recorder or SessionRecorder.for_session(self.settings.home_dir, self.session_id)

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.session_id}, "recursion_limit": RECURSION_LIMIT}

    def exists(self) -> bool:
        """Whether this session id has a stored conversation (a new or cleared session has none)."""
        return self.checkpointer.get_tuple(self.config) is not None

    def send(self, text: str, files: list[str] | None = None, options: dict[str, Any] | None = None) -> AgentState:
        """One turn; a turn stopped at a question (``state["status"] == "interrupted"``) goes on with
        :meth:`resume`."""
        state = self.agent.invoke(text, files=files, thread_id=self.session_id, options=options)
        self._pending_files = files
        if state.get("status") != "interrupted":
            self.recorder.record(text, state, files=files, thread_id=self.session_id)
        return state

    def resume(self, answer: Any = None) -> AgentState:
        """Answer the question the current turn stopped at (``ValidationError("invalid_answer")`` leaves it
        waiting)."""
        state = self.agent.resume(self.session_id, answer)
        if state.get("status") != "interrupted":
            self.recorder.record(state.get("user_query", ""), state, files=getattr(self, "_pending_files", None),
                                 thread_id=self.session_id)
        return state

    def stream(self, text: str, files: list[str] | None = None,
               options: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """:meth:`send` as :meth:`MolxAgent.stream` events."""
        self._pending_files = files
        yield from self._recorded(self.agent.stream(text, files=files, thread_id=self.session_id, options=options))

    def stream_resume(self, answer: Any = None) -> Iterator[dict[str, Any]]:
        """:meth:`resume` as :meth:`MolxAgent.stream_resume` events."""
        yield from self._recorded(self.agent.stream_resume(self.session_id, answer))

    def _recorded(self, events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for event in events:
            if event.get("event") == "final" and event.get("status") != "interrupted":
                state = {k: v for k, v in event.items() if k != "event"}
                state.setdefault("iteration", state.get("iterations", 0))
                self.recorder.record(state.get("query", ""), state, files=getattr(self, "_pending_files", None),
                                     thread_id=self.session_id)
            yield event

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
        self.recorder.clear()

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


__all__ = ["MolxAgent", "ChatSession", "SessionRecorder", "fresh_turn_state", "list_sessions", "run_sar_agent",
           "new_thread_id", "open_sqlite_saver", "compact_thread", "run_document", "INTERRUPT_OPTIONS"]

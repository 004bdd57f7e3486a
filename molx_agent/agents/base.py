"""Base class of every worker: owns timing, logging, error capture, error classes and the attempt log.

A worker subclass implements :meth:`BaseAgent._run`, which receives its task and the whole state (results of
the tasks it depends on are in ``state["results"][dep_id]``) and returns a result dict.  Conventional keys:

- ``summary``: one or a few sentences of prose for the final answer, written in ``state.get("language", "en")``;
- ``verdict`` (``accept`` / ``weak`` / ``reject``) and ``issues`` (``[{code, message, ...}]``): the worker's
  judgement of its own result, read by REFLECT (a ``reject`` is not a success even though the task is ``done``);
- ``report_paths``: files the worker wrote (reports, cleaned data); large artefacts are files referenced by path;
- anything else the downstream workers need.

The result is converted to plain JSON (:func:`~molx_agent.agents.modules.state.to_jsonable`) here, at the worker
boundary, so the state stays checkpoint-safe whatever a worker returns.

Raising an exception marks the task ``failed`` with an error class (:func:`classify_error`): ``bad_input``
(a :class:`~molx_agent.errors.RetroError` about the input: never retried, answered with the fix), ``transient``
(``ExecutionError``, I/O and time-outs: retried) or ``internal`` (a bug: reported, not retried).  Raising
:class:`CapabilityUnavailable` says plainly that a capability is not built yet.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from typing import Any

from langgraph.errors import GraphBubbleUp

from molx_agent.agents.modules.state import AgentState, Task, to_jsonable
from molx_agent.errors import ExecutionError, RetroError

logger = logging.getLogger(__name__)

#: Error codes that are internal faults whatever their class (a worker module that cannot be imported).
INTERNAL_CODES = frozenset({"worker_import_error"})
#: Error codes that are transient whatever their class.
TRANSIENT_CODES = frozenset({"timeout", "llm_unreachable", "worker_timeout"})


class CapabilityUnavailable(RuntimeError):
    """Raised by a worker asked for something molx-agent cannot do yet."""


def classify_error(exc: BaseException) -> str:
    """``bad_input``, ``transient`` or ``internal`` (see the module docstring)."""
    if isinstance(exc, RetroError):
        if exc.code in INTERNAL_CODES:
            return "internal"
        if exc.code in TRANSIENT_CODES or isinstance(exc, ExecutionError):
            return "transient"
        return "bad_input"
    if isinstance(exc, (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)):
        return "bad_input"
    if isinstance(exc, (TimeoutError, ConnectionError, OSError, RuntimeError, MemoryError)):
        return "transient"
    return "internal"


class BaseAgent(ABC):
    """A worker of the graph."""

    name: str = "base"
    description: str = ""
    #: Option keys an LLM re-plan may set in this worker's ``inputs["options"]`` (validated by the planner).
    option_keys: tuple[str, ...] = ()

    def __init__(self, llm: Any = None, tools: list[Any] | None = None, **kwargs: Any) -> None:
        self.llm = llm
        self.tools = list(tools or [])
        self.options = kwargs

    @property
    def settings(self) -> Any:
        """Settings the orchestrator passed (``settings=`` keyword), else the global ones."""
        from molx_agent.config import get_settings

        return self.options.get("settings") or get_settings()

    @property
    def engine(self) -> Any:
        """The :class:`~molx_agent.retro.engine.RetroEngine` the orchestrator injected (``engine=`` or a lazy
        ``engine_factory=``).

        A worker built on its own (a script, a test of one worker) gets the process-wide default engine.
        """
        engine = self.options.get("engine")
        if engine is None:
            factory = self.options.get("engine_factory")
            if factory is not None:
                return factory()
            from molx_agent.retro.engine import default_engine

            engine = default_engine()
            self.options["engine"] = engine
        return engine

    @abstractmethod
    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        """Do the work of ``task`` and return its result dict."""

    def run(self, state: AgentState) -> dict[str, Any]:
        """Run the current task of ``state`` and return a partial state update.

        The update holds this task only: ``tasks`` (``{task_id: task}`` with its new status and attempt log),
        ``results`` (``{task_id: result}``) and ``errors`` (the new error, if any) -- so tasks running in
        parallel never overwrite each other's entries.
        """
        task_id = state.get("current_task_id")
        tasks = state.get("tasks") or {}
        if not task_id or task_id not in tasks:
            return {"errors": [{"code": "no_task", "message": f"{self.name}: no current task"}]}
        task: dict[str, Any] = {k: v for k, v in dict(tasks[task_id]).items()
                                if k not in ("error", "error_class", "unavailable")}
        start = time.perf_counter()
        errors: list[dict[str, Any]] = []
        try:
            raw = self._run(task, state)  # type: ignore[arg-type]
            if not isinstance(raw, dict):
                raise TypeError(f"worker {self.name} returned {type(raw).__name__}, expected dict")
            result = to_jsonable(raw)
            task["status"] = "done"
        except GraphBubbleUp:  # a LangGraph interrupt() (the chemist is asked): the run stops here, resumable
            raise
        except CapabilityUnavailable as exc:
            result = {"summary": str(exc), "unavailable": True}
            task.update(status="skipped", error=str(exc), unavailable=True)
        except RetroError as exc:
            logger.info("worker %s failed: %s", self.name, exc)
            err = to_jsonable(exc.to_dict())
            result = {"error": err}
            task.update(status="failed", error=str(exc), error_class=classify_error(exc))
            errors.append({"task_id": task_id, "worker": self.name, **err, "error_class": task["error_class"]})
        except Exception as exc:  # noqa: BLE001 - a worker's failure is recorded, never raised
            logger.error("worker %s crashed on task %s: %s: %s", self.name, task_id, type(exc).__name__, exc)
            logger.debug("traceback of worker %s", self.name, exc_info=True)
            message = f"{type(exc).__name__}: {exc}"
            result = {"error": {"code": "worker_exception", "error_type": type(exc).__name__, "message": message}}
            task.update(status="failed", error=message, error_class=classify_error(exc))
            errors.append({"task_id": task_id, "worker": self.name, "code": "worker_exception", "message": message,
                           "error_class": task["error_class"]})
        elapsed = time.perf_counter() - start
        result.setdefault("elapsed_s", round(elapsed, 4))
        result.setdefault("worker", self.name)
        task["attempts"] = [*(task.get("attempts") or []), attempt_record(task, result, elapsed)]
        logger.debug("worker %s finished task %s in %.3fs: %s", self.name, task_id, elapsed, task["status"])
        return {"tasks": {task_id: task}, "results": {task_id: result}, "errors": errors}

    @staticmethod
    def dependency_results(task: Task, state: AgentState) -> list[dict[str, Any]]:
        """Results of the tasks ``task`` depends on, in dependency order."""
        results = state.get("results") or {}
        return [results[d] for d in task.get("depends_on", []) if d in results]

    @staticmethod
    def ancestor_results(task: Task, state: AgentState) -> list[dict[str, Any]]:
        """Results of every task ``task`` depends on, directly or not (nearest first)."""
        results = state.get("results") or {}
        tasks = state.get("tasks") or {}
        seen: list[str] = []
        queue = list(task.get("depends_on") or [])
        while queue:
            tid = queue.pop(0)
            if tid in seen:
                continue
            seen.append(tid)
            queue += list((tasks.get(tid) or {}).get("depends_on") or [])
        return [results[t] for t in seen if t in results]


def attempt_record(task: dict[str, Any], result: dict[str, Any], elapsed: float) -> dict[str, Any]:
    """One entry of ``task["attempts"]``: what ran, with which options, and how it ended."""
    record: dict[str, Any] = {"n": len(task.get("attempts") or []) + 1, "status": task.get("status"),
                              "elapsed_s": round(elapsed, 3),
                              "options": to_jsonable((task.get("inputs") or {}).get("options") or {})}
    if task.get("status") == "failed":
        err = result.get("error") or {}
        record.update(error_code=err.get("code"), error_class=task.get("error_class"), error=err.get("message"))
        if err.get("hint"):
            record["hint"] = err["hint"]
    else:
        if result.get("verdict"):
            record["verdict"] = result["verdict"]
            record["issues"] = [i.get("code") for i in result.get("issues") or [] if isinstance(i, dict)]
        if result.get("strategy"):
            record["strategy"] = result["strategy"]
        record["summary"] = str(result.get("attempt_summary") or result.get("summary") or "")[:400]
    return record


__all__ = ["BaseAgent", "CapabilityUnavailable", "classify_error", "attempt_record", "INTERNAL_CODES",
           "TRANSIENT_CODES"]

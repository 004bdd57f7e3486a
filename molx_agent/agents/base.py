"""Base class of every worker: owns timing, logging and error capture.

A worker subclass implements :meth:`BaseAgent._run`, which receives its task and
the whole state (results of the tasks it depends on are in
``state["results"][dep_id]``) and returns a JSON-able result dict.  Conventional
keys of that dict:

- ``summary``: one or a few sentences of prose for the final answer, written in
  ``state.get("language", "en")`` (``"en"`` or ``"zh"``);
- ``report_paths``: list of files the worker wrote (reports, cleaned data);
- anything else the downstream workers need.

Raising any exception marks the task ``failed``; the error is recorded, never
swallowed.  Raising :class:`CapabilityUnavailable` says plainly that a
capability is not built yet.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from typing import Any

from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import RetroError

logger = logging.getLogger(__name__)


class CapabilityUnavailable(RuntimeError):
    """Raised by a worker asked for something molx-agent cannot do yet."""


class BaseAgent(ABC):
    """A worker of the graph."""

    name: str = "base"
    description: str = ""

    def __init__(self, llm: Any = None, tools: list[Any] | None = None, **kwargs: Any) -> None:
        self.llm = llm
        self.tools = list(tools or [])
        self.options = kwargs

    @property
    def settings(self) -> Any:
        """Settings the orchestrator passed (``settings=`` keyword), else the global ones."""
        from molx_agent.config import get_settings

        return self.options.get("settings") or get_settings()

    @abstractmethod
    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        """Do the work of ``task`` and return its result dict."""

    def run(self, state: AgentState) -> dict[str, Any]:
        """Run the current task of ``state`` and return a partial state update.

        The update holds ``tasks`` (with the task's new status), ``results`` and,
        on failure, ``errors``.
        """
        task_id = state.get("current_task_id")
        tasks = dict(state.get("tasks") or {})
        if not task_id or task_id not in tasks:
            return {"errors": [*state.get("errors", []), {"code": "no_task", "message": f"{self.name}: no current task"}]}
        task = dict(tasks[task_id])
        start = time.perf_counter()
        results = dict(state.get("results") or {})
        errors = list(state.get("errors") or [])
        try:
            result = self._run(task, state)  # type: ignore[arg-type]
            if not isinstance(result, dict):
                raise TypeError(f"worker {self.name} returned {type(result).__name__}, expected dict")
            task["status"] = "done"
        except CapabilityUnavailable as exc:
            result = {"summary": str(exc), "unavailable": True}
            task["status"] = "skipped"
            task["error"] = str(exc)
            task["unavailable"] = True
        except RetroError as exc:
            logger.info("worker %s failed: %s", self.name, exc)
            result = {"error": exc.to_dict()}
            task["status"] = "failed"
            task["error"] = str(exc)
            errors.append({"task_id": task_id, "worker": self.name, **exc.to_dict()})
        except Exception as exc:  # noqa: BLE001 - a worker's failure is recorded, never raised
            logger.error("worker %s crashed on task %s: %s: %s", self.name, task_id, type(exc).__name__, exc)
            logger.debug("traceback of worker %s", self.name, exc_info=True)
            result = {"error": {"code": "worker_exception", "message": f"{type(exc).__name__}: {exc}"}}
            task["status"] = "failed"
            task["error"] = f"{type(exc).__name__}: {exc}"
            errors.append({"task_id": task_id, "worker": self.name, "code": "worker_exception", "message": task["error"]})
        elapsed = time.perf_counter() - start
        result.setdefault("elapsed_s", round(elapsed, 4))
        result.setdefault("worker", self.name)
        results[task_id] = result
        tasks[task_id] = task  # type: ignore[assignment]
        logger.debug("worker %s finished task %s in %.3fs: %s", self.name, task_id, elapsed, task["status"])
        return {"tasks": tasks, "results": results, "errors": errors}

    @staticmethod
    def dependency_results(task: Task, state: AgentState) -> list[dict[str, Any]]:
        """Results of the tasks ``task`` depends on, in dependency order."""
        results = state.get("results") or {}
        return [results[d] for d in task.get("depends_on", []) if d in results]


__all__ = ["BaseAgent", "CapabilityUnavailable"]

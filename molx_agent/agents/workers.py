"""Worker lookup: task type -> worker class, imported lazily.

``WORKER_CLASSES`` maps each task type to ``"module:Class"``.  A worker whose module does not exist yet
becomes an :class:`UnavailableWorker`, which answers plainly that the capability is not available yet
(task ``skipped``); a module that exists but fails to import becomes a worker that fails with the
import error, so a bug is never disguised as "not built".
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from molx_agent.agents.base import BaseAgent, CapabilityUnavailable
from molx_agent.agents.modules.state import AgentState, Task

logger = logging.getLogger(__name__)

WORKER_CLASSES: dict[str, str] = {
    "analysis": "molx_agent.agents.analysis:AnalysisAgent",
    "tool_agent": "molx_agent.agents.tool_agent:ToolAgent",
    "validation": "molx_agent.agents.validation:ValidationAgent",
    "disconnection": "molx_agent.agents.disconnection:DisconnectionAgent",
    "data_cleaner": "molx_agent.agents.data_cleaner:DataCleanerAgent",
    "sar": "molx_agent.agents.sar:SARAgent",
    "reporter": "molx_agent.agents.reporter:ReporterAgent",
}

CAPABILITY_LABELS: dict[str, dict[str, str]] = {
    "analysis": {"en": "molecule analysis", "zh": "分子分析"},
    "tool_agent": {"en": "tool calling", "zh": "工具调用"},
    "validation": {"en": "reaction validation", "zh": "反应验证"},
    "disconnection": {"en": "retrosynthetic route search", "zh": "逆合成路线搜索"},
    "data_cleaner": {"en": "compound data cleaning", "zh": "化合物数据清洗"},
    "sar": {"en": "SAR analysis", "zh": "构效关系(SAR)分析"},
    "reporter": {"en": "report writing", "zh": "报告生成"},
}


class UnavailableWorker(BaseAgent):
    """Stands in for a worker whose module is not built yet: the task is ``skipped`` with a plain message."""

    def __init__(self, worker_type: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.worker_type = worker_type
        self.name = worker_type

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        lang = state.get("language", "en")
        label = CAPABILITY_LABELS.get(self.worker_type, {}).get(lang, self.worker_type)
        if lang == "zh":
            raise CapabilityUnavailable(f"{label}功能在当前版本中尚不可用。")
        raise CapabilityUnavailable(f"The {label} capability is not available yet in this version of molx-agent.")


class BrokenWorker(BaseAgent):
    """A worker module exists but cannot be imported: the task fails with the import error."""

    def __init__(self, worker_type: str, error: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.worker_type = worker_type
        self.name = worker_type
        self.error = error

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        from molx_agent.errors import ExecutionError

        raise ExecutionError("worker_import_error", f"worker {self.worker_type!r} failed to load: {self.error}",
                             value=WORKER_CLASSES.get(self.worker_type))


def load_worker_class(worker_type: str) -> type[BaseAgent] | None:
    """The class for ``worker_type``; None when its module is not built yet. Import errors propagate."""
    path = WORKER_CLASSES.get(worker_type)
    if path is None:
        raise KeyError(f"unknown worker type {worker_type!r}")
    module_name, class_name = path.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    return getattr(module, class_name)


def get_worker(worker_type: str, **kwargs: Any) -> BaseAgent:
    """Instantiate the worker for ``worker_type`` (``llm``, ``tools``, ``settings`` passed through)."""
    try:
        cls = load_worker_class(worker_type)
    except KeyError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as a failed task, not a crash of the graph
        logger.error("worker %s failed to import: %s", worker_type, exc)
        return BrokenWorker(worker_type, f"{type(exc).__name__}: {exc}", **kwargs)
    if cls is None:
        return UnavailableWorker(worker_type, **kwargs)
    return cls(**kwargs)


def available_workers() -> dict[str, bool]:
    """Which worker modules are importable now (for ``doctor``)."""
    out = {}
    for wt in WORKER_CLASSES:
        try:
            out[wt] = load_worker_class(wt) is not None
        except Exception:  # noqa: BLE001
            out[wt] = False
    return out


__all__ = ["WORKER_CLASSES", "CAPABILITY_LABELS", "UnavailableWorker", "BrokenWorker", "get_worker",
           "load_worker_class", "available_workers"]

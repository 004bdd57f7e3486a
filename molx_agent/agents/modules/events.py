"""Worker progress as LangGraph ``custom`` stream events (``MolxAgent.stream`` yields them as ``progress`` events).

:func:`progress_emitter` returns a throttled ``emit(stage, **numbers)`` for the worker running now (a no-op outside
a graph run or when nobody streams).  The library layers (retro/, sar/, ...) never see LangGraph: a worker passes
a plain callback down (e.g. :func:`search_progress` for ``RetroEngine.search(progress=...)``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

#: At most this many progress events per second and worker task (stage changes and ``force`` always go out).
MAX_EVENTS_PER_SECOND = 4.0


class ProgressEmitter:
    """``emit(stage, force=False, **fields)`` -> ``{"event": "progress", "node": "work", "worker", "task_id",
    "stage", **fields}`` on the LangGraph stream writer, throttled."""

    def __init__(self, writer: Callable[[Any], None] | None, worker: str, task_id: str | None,
                 min_interval: float = 1.0 / MAX_EVENTS_PER_SECOND) -> None:
        self.writer = writer
        self.worker = worker
        self.task_id = task_id
        self.min_interval = min_interval
        self._last = 0.0
        self._last_stage: str | None = None
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return self.writer is not None

    def __call__(self, stage: str, *, force: bool = False, **fields: Any) -> None:
        if self.writer is None:
            return
        now = time.monotonic()
        with self._lock:
            if not force and stage == self._last_stage and now - self._last < self.min_interval:
                return
            self._last, self._last_stage = now, stage
        event = {"event": "progress", "node": "work", "worker": self.worker, "task_id": self.task_id, "stage": stage}
        event.update({k: v for k, v in fields.items() if v is not None})
        try:
            self.writer(event)
        except Exception:  # noqa: BLE001 - progress never breaks the work
            self.writer = None


def progress_emitter(worker: str, task_id: str | None) -> ProgressEmitter:
    """The emitter of the worker task running now (silent outside a LangGraph run)."""
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (ImportError, RuntimeError, KeyError):
        writer = None
    return ProgressEmitter(writer, worker, task_id)


def search_progress(emit: ProgressEmitter, target: str, name: str = "") -> Callable[[dict[str, Any]], None] | None:
    """A ``RetroEngine.search(progress=...)`` callback reporting expansions and routes found for ``target``."""
    if not emit:
        return None
    seen = {"routes": -1}

    def callback(info: dict[str, Any]) -> None:
        routes = int(info.get("n_routes") or 0)
        elapsed = info.get("elapsed_s")
        emit("search", force=routes != seen["routes"], target=target, target_name=name or None,
             expansions=info.get("n_expansions"), max_expansions=info.get("max_expansions"),
             routes_found=routes, solved=bool(info.get("solved")),
             elapsed_s=round(float(elapsed), 2) if isinstance(elapsed, (int, float)) else None,
             time_limit=info.get("time_limit"))
        seen["routes"] = routes

    return callback


__all__ = ["ProgressEmitter", "progress_emitter", "search_progress", "MAX_EVENTS_PER_SECOND"]

"""Live progress of a run on a terminal (rich, on stderr) from :meth:`MolxAgent.stream` events, and NDJSON output.

``LiveProgress`` is a context manager and an event callback: each ``node_start`` / ``progress`` event updates one
status line (which step runs, route search expansions and routes found, SAR stage); finished worker tasks are
printed above it.  ``ndjson_line(event)`` is one event as one line of JSON (``run --stream``).
"""

from __future__ import annotations

import json
from typing import Any

NODE_TEXT = {
    "classify": "understanding the question",
    "plan": "planning",
    "approve_plan": "waiting for the plan approval",
    "act": "scheduling",
    "reflect": "reviewing the results",
    "optimize": "re-planning",
    "finalize": "writing the answer",
}

STAGE_TEXT = {
    "search_start": "route search started",
    "search": "route search",
    "search_done": "route search finished",
    "load_data": "loading the cleaned data",
    "analyse_series": "analysing series",
    "insights": "writing SAR insights",
    "write_tables": "writing SAR tables",
    "done": "done",
}


def ndjson_line(event: dict[str, Any]) -> str:
    """One event as one line of JSON."""
    from molx_agent.io_utils import to_jsonable

    return json.dumps(to_jsonable(event), ensure_ascii=False, separators=(",", ":"))


def event_text(event: dict[str, Any]) -> str | None:
    """A short line describing ``event`` (``None`` for events not worth a line)."""
    kind = event.get("event")
    if kind == "node_start":
        if event.get("node") == "work":
            return f"{event.get('worker')} ({event.get('task_id')}) running"
        return NODE_TEXT.get(str(event.get("node")), str(event.get("node")))
    if kind == "progress":
        stage = str(event.get("stage"))
        text = f"{event.get('worker')}: {STAGE_TEXT.get(stage, stage)}"
        target = event.get("target_name") or event.get("target")
        if target:
            text += f" {target}"
        bits = []
        if event.get("expansions") is not None:
            limit = f"/{event['max_expansions']}" if event.get("max_expansions") else ""
            bits.append(f"{event['expansions']}{limit} expansions")
        if event.get("routes_found") is not None:
            bits.append(f"{event['routes_found']} route(s)")
        if event.get("elapsed_s") is not None:
            limit = f"/{event['time_limit']:g}" if isinstance(event.get("time_limit"), (int, float)) else ""
            bits.append(f"{event['elapsed_s']:.1f}{limit} s")
        if event.get("n_series") is not None:
            bits.append(f"{event['n_series']} series")
        return text + (f" ({', '.join(bits)})" if bits else "")
    if kind == "interrupt":
        return "waiting for your answer"
    return None


class LiveProgress:
    """Shows a run's events live on ``console`` (default: stderr) with a rich status line."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self.status: Any = None
        self.lines: list[str] = []

    def __enter__(self) -> LiveProgress:
        self.status = self.console.status("starting", spinner="dots")
        self.status.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("event") == "node_end" and event.get("node") == "work" and event.get("status"):
            line = f"{event.get('worker')} ({event.get('task_id')}): {event.get('status')}"
            self.lines.append(line)
            self.console.print(line, highlight=False, markup=False)
            return
        text = event_text(event)
        if text is None:
            return
        self.lines.append(text)
        if self.status is not None:
            self.status.update(text)


__all__ = ["LiveProgress", "ndjson_line", "event_text"]

"""The graph LangGraph Studio / ``langgraph dev`` serves (``langgraph.json`` at the repository root points here).

``make_graph(config=None)`` is the graph factory: the orchestration graph of a :class:`MolxAgent` built from the
settings (``MOLX_*`` environment; rules mode unless an LLM endpoint is configured), starting with the ``intake`` node
so a run's input may be just ``{"messages": [{"role": "user", "content": "..."}]}`` or ``{"user_query": "..."}``
(plus ``"options"``, e.g. ``{"confirm_plan": true}``: the interrupts then show in Studio and a run resumes with
``Command(resume=...)``).  The server brings its own checkpointer, so the graph is compiled without one.  The agent
is built once per process.

Start it offline: ``uv sync --extra studio`` then ``LANGGRAPH_CLI_NO_ANALYTICS=1 LANGSMITH_TRACING=false
uv run langgraph dev --host 127.0.0.1 --no-browser`` (``docs/architecture.md``, "LangGraph Studio").
"""

from __future__ import annotations

import threading
from typing import Any

_LOCK = threading.Lock()
_AGENT: Any = None


def studio_agent() -> Any:
    """The process's :class:`~molx_agent.agents.molx.MolxAgent` for the served graph (built at first use)."""
    global _AGENT
    with _LOCK:
        if _AGENT is None:
            from molx_agent.agents.molx import MolxAgent

            _AGENT = MolxAgent()
        return _AGENT


def make_graph(config: Any = None) -> Any:
    """The compiled graph for LangGraph Studio (no checkpointer: the server's own persists the threads)."""
    from molx_agent.agents.modules.graph import build_graph

    return build_graph(studio_agent().nodes, checkpointer=None, intake=True)


__all__ = ["make_graph", "studio_agent"]

"""LangChain tool adapters (thin: parse args, call one library function, return JSON).

Access goes through the registry (``molx_agent.agents.modules.tools``); this module only re-exports
lazy accessors so importing ``molx_agent.tools`` stays cheap.  To add a tool family, write
``molx_agent/tools/<family>_tools.py`` with ``register_tools(registry)`` and add one line to
``DEFAULT_LOADERS`` in ``molx_agent/agents/modules/tools.py``.
"""

from __future__ import annotations

from typing import Any


def get_registry() -> Any:
    """The singleton :class:`~molx_agent.agents.modules.tools.ToolRegistry`."""
    from molx_agent.agents.modules.tools import get_registry as _get

    return _get()


def get_all_tools(category: str | None = None, agent: str | None = None) -> list[Any]:
    """Registered tools, optionally filtered by category and by the agent allowed to use them."""
    return get_registry().get_tools(agent=agent, category=category)


def get_tool_names(agent: str | None = None) -> list[str]:
    return get_registry().get_tool_names(agent=agent)


def safe_dir_name(name: str) -> str:
    """``name`` as one safe folder name: letters, digits, ``-``, ``_`` and ``.`` only, no path separators, no
    ``..``, at most 64 characters (``"../../etc"`` -> ``"etc"``, ``"my tool/x"`` -> ``"my_tool_x"``)."""
    import re

    text = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name or "")).strip("._-")
    text = re.sub(r"\.{2,}", ".", text)
    return text[:64] or "tool"


def get_tool_output_dir(module: str) -> Any:
    """A new timestamped directory ``<MOLX_OUTPUT_DIR>/<module>/<YYYYMMDD_HHMMSS>`` for a tool's files.

    ``module`` is sanitised (:func:`safe_dir_name`): a tool can never write outside ``MOLX_OUTPUT_DIR``.
    """
    from molx_agent.config import get_settings
    from molx_agent.io_utils import timestamped_dir

    return timestamped_dir(get_settings().output_dir / safe_dir_name(module))


__all__ = ["get_registry", "get_all_tools", "get_tool_names", "get_tool_output_dir", "safe_dir_name"]

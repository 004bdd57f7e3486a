"""The tool registry: one singleton map of tool name -> registered LangChain tool.

Tools are registered by *loaders*.  A loader is a function ``register_tools(registry)`` living in a
module under ``molx_agent.tools``; :data:`DEFAULT_LOADERS` maps each category to its loader's import
path, so adding a tool family is a one-line edit there.  Loaders run lazily, on the first
``get_tools()`` / ``list_tools()`` call; a loader whose module does not exist yet is skipped (logged),
one that fails to import is logged as an error and skipped, never fatal.

MCP tools join through :meth:`ToolRegistry.register_mcp_tools` (category ``mcp``), already filtered by
the server's allow-list (see ``agents/modules/mcp.py``); a name clash keeps the existing tool and warns.

Each ``MolxAgent`` works on :meth:`ToolRegistry.scoped` -- a view that sees every built-in tool of the singleton
and keeps its own MCP tools and LLM-bound tool copies -- so one agent's MCP servers or LLM never leak into the
next agent.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

logger = logging.getLogger(__name__)


class ToolCategory(StrEnum):
    RDKIT = "rdkit"
    RETRO = "retro"
    SAR = "sar"
    REPORT = "report"
    EXTRACTOR = "extractor"
    STANDARDIZE = "standardize"
    CONVERTER = "converter"
    MCP = "mcp"


#: category -> "module:function" of its loader.  One line per tool family.
DEFAULT_LOADERS: dict[str, str] = {
    "rdkit": "molx_agent.tools.rdkit_tools:register_tools",
    "retro": "molx_agent.tools.skill_tools:register_tools",
    "sar": "molx_agent.tools.sar_tools:register_tools",
}


@dataclass
class RegisteredTool:
    tool: Any  # langchain_core.tools.BaseTool
    category: ToolCategory
    allowed_agents: frozenset[str] | None = None  # None = every agent
    requires_llm: bool = False
    source: str = "builtin"  # "builtin" or "mcp:<server>"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.tool.name)

    def allows(self, agent: str | None) -> bool:
        return agent is None or self.allowed_agents is None or agent in self.allowed_agents


class ToolRegistry:
    """Singleton registry of tools (``ToolRegistry()`` always returns the same instance)."""

    _instance: ToolRegistry | None = None
    _lock = threading.RLock()

    def __new__(cls) -> ToolRegistry:
        with cls._lock:
            if cls._instance is None:
                inst = super().__new__(cls)
                inst._tools = {}
                inst._loaders = {}
                inst._loaded = set()
                inst._llm = None
                inst.warnings = []
                inst._parent = None
                inst._register_default_loaders()
                cls._instance = inst
            return cls._instance

    _tools: dict[str, RegisteredTool]
    _loaders: dict[str, str]
    _loaded: set[str]
    _llm: Any
    warnings: list[str]
    _parent: ToolRegistry | None

    def scoped(self) -> ToolRegistry:
        """A registry for one agent: every tool of this one is visible, its own registrations stay its own."""
        child = object.__new__(ToolRegistry)
        child._tools = {}
        child._loaders = {}
        child._loaded = set()
        child._llm = None
        child.warnings = []
        child._parent = self
        return child

    def _entries(self) -> dict[str, RegisteredTool]:
        """Every visible tool: the parent's (loaded on demand), then this registry's own (which win)."""
        self._ensure_loaded()
        if self._parent is None:
            return dict(self._tools)
        return {**self._parent._entries(), **self._tools}

    def all_warnings(self) -> list[str]:
        """Warnings of this registry and of the registry it is a view of."""
        parent = self._parent.all_warnings() if self._parent is not None else []
        return [*parent, *(w for w in self.warnings if w not in parent)]

    # -- loaders -----------------------------------------------------------------------------
    def _register_default_loaders(self) -> None:
        for category, path in DEFAULT_LOADERS.items():
            self.add_loader(category, path)

    def add_loader(self, category: str, path: str) -> None:
        """Register (or replace) the loader ``"module:function"`` for ``category``."""
        if ":" not in path:
            raise ValueError(f"loader path must be 'module:function', got {path!r}")
        self._loaders[str(category)] = path
        self._loaded.discard(str(category))

    def _ensure_loaded(self) -> None:
        with self._lock:
            for category, path in list(self._loaders.items()):
                if category in self._loaded:
                    continue
                self._loaded.add(category)
                module_name, func_name = path.split(":", 1)
                try:
                    module = importlib.import_module(module_name)
                except ModuleNotFoundError as exc:
                    if exc.name == module_name:
                        logger.debug("tool loader %s: module not built yet", path)
                        continue
                    logger.error("tool loader %s failed to import: %s", path, exc)
                    self.warnings.append(f"tools '{category}' unavailable: {exc}")
                    continue
                except Exception as exc:  # noqa: BLE001 - a broken tool family must not stop the agent
                    logger.error("tool loader %s failed to import: %s", path, exc)
                    self.warnings.append(f"tools '{category}' unavailable: {exc}")
                    continue
                try:
                    getattr(module, func_name)(self)
                except Exception as exc:  # noqa: BLE001
                    logger.error("tool loader %s failed: %s", path, exc)
                    self.warnings.append(f"tools '{category}' failed to load: {exc}")

    # -- registration ------------------------------------------------------------------------
    def register(
        self,
        tool: Any,
        category: ToolCategory | str,
        allowed_agents: Iterable[str] | None = None,
        requires_llm: bool = False,
        *,
        source: str = "builtin",
        replace: bool = False,
    ) -> bool:
        """Add ``tool``; returns False (and warns) when the name is taken and ``replace`` is False."""
        name = str(tool.name)
        with self._lock:
            existing = self._tools.get(name) or (self._parent._entries().get(name) if self._parent else None)
            if existing is not None and existing.tool is not tool and not replace:
                msg = (f"tool name clash: {name!r} from {source} ignored, "
                       f"already registered from {existing.source}")
                logger.info(msg)  # surfaced through ``warnings``
                self.warnings.append(msg)
                return False
            self._tools[name] = RegisteredTool(
                tool=tool,
                category=ToolCategory(category),
                allowed_agents=frozenset(allowed_agents) if allowed_agents is not None else None,
                requires_llm=requires_llm,
                source=source,
            )
            if requires_llm and self._llm is not None:
                _set_llm(tool, self._llm)
        return True

    def unregister(self, name: str) -> None:
        with self._lock:
            self._tools.pop(name, None)

    def register_mcp_tools(self, tools: Iterable[Any], server: str,
                           allowed_agents: Iterable[str] | None = ("tool_agent",)) -> list[str]:
        """Register already allow-listed MCP tools; returns the names actually added."""
        added = []
        for tool in tools:
            if self.register(tool, ToolCategory.MCP, allowed_agents=allowed_agents, source=f"mcp:{server}"):
                added.append(str(tool.name))
        return added

    def inject_llm(self, llm: Any) -> None:
        """Give ``llm`` to every tool registered with ``requires_llm=True`` (now and later).

        On a scoped registry the parent's tools are copied first, so the shared tools keep no agent's LLM.
        """
        self._llm = llm
        with self._lock:
            for name, entry in self._entries().items():
                if not entry.requires_llm:
                    continue
                if name not in self._tools:
                    entry = RegisteredTool(tool=_copy_tool(entry.tool), category=entry.category,
                                           allowed_agents=entry.allowed_agents, requires_llm=True,
                                           source=entry.source, meta=dict(entry.meta))
                    self._tools[name] = entry
                _set_llm(entry.tool, llm)

    def bind_engine(self, engine: Any) -> None:
        """Tools that run on a retrosynthesis engine (an ``engine`` field: the skill tools) use ``engine``.

        On a scoped registry the parent's tools are copied first, so the shared tools keep the default engine.
        """
        with self._lock:
            for name, entry in self._entries().items():
                if "engine" not in getattr(type(entry.tool), "model_fields", {}):
                    continue
                if name not in self._tools:
                    entry = RegisteredTool(tool=_copy_tool(entry.tool), category=entry.category,
                                           allowed_agents=entry.allowed_agents, requires_llm=entry.requires_llm,
                                           source=entry.source, meta=dict(entry.meta))
                    self._tools[name] = entry
                entry.tool.engine = engine

    # -- queries -----------------------------------------------------------------------------
    def get_tools(self, agent: str | None = None, category: ToolCategory | str | None = None) -> list[Any]:
        """Tools visible to ``agent`` (all when None), optionally of one ``category``."""
        cat = ToolCategory(category) if category is not None else None
        return [e.tool for e in self._entries().values() if e.allows(agent) and (cat is None or e.category == cat)]

    def get_tool(self, name: str) -> Any | None:
        entry = self._entries().get(name)
        return entry.tool if entry else None

    def get_tool_names(self, agent: str | None = None) -> list[str]:
        return [t.name for t in self.get_tools(agent=agent)]

    def list_tools(self) -> list[dict[str, Any]]:
        """One JSON-able row per tool: name, category, source, allowed_agents, requires_llm, description."""
        return [
            {
                "name": e.name,
                "category": e.category.value,
                "source": e.source,
                "allowed_agents": sorted(e.allowed_agents) if e.allowed_agents is not None else None,
                "requires_llm": e.requires_llm,
                "description": str(getattr(e.tool, "description", "")).strip().split("\n")[0],
            }
            for e in self._entries().values()
        ]

    @classmethod
    def reset(cls) -> None:
        """Forget the singleton (tests)."""
        with cls._lock:
            cls._instance = None


def _copy_tool(tool: Any) -> Any:
    """A shallow copy of a tool (pydantic ``model_copy`` when it is a pydantic model)."""
    import copy

    if hasattr(tool, "model_copy"):
        return tool.model_copy()
    return copy.copy(tool)


def _set_llm(tool: Any, llm: Any) -> None:
    try:
        tool.llm = llm
    except (AttributeError, ValueError):  # pydantic models without an ``llm`` field
        object.__setattr__(tool, "llm", llm)


def get_registry() -> ToolRegistry:
    return ToolRegistry()


def get_tools_for_agent(agent: str) -> list[Any]:
    return get_registry().get_tools(agent=agent)


__all__ = [
    "ToolCategory",
    "ToolRegistry",
    "RegisteredTool",
    "DEFAULT_LOADERS",
    "get_registry",
    "get_tools_for_agent",
]

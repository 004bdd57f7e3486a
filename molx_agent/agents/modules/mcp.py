"""MCP client: load tools from MCP servers (stdio or http) into the tool registry.

Configuration (``MCP_SERVERS_CONFIG``, default ``config/mcp_servers.json``; used when ``MCP_ENABLED``)::

    {"servers": {
        "chemistry": {"transport": "stdio", "command": "python", "args": ["examples/example_mcp_server.py"],
                      "allowed_tools": ["*"], "allowed_agents": ["tool_agent"], "enabled": true},
        "search": {"transport": "http", "url": "http://localhost:8000/mcp", "allowed_tools": ["lookup"]}}}

A flat mapping ``{"name": {...}}`` is accepted too.  Only tools named in a server's ``allowed_tools``
(``["*"]`` = all) join the registry (category ``mcp``); a server without an allow-list contributes nothing
and says so.  ``command: "python"`` runs the server with the current interpreter.  A server that fails to
start or answer within ``timeout`` seconds produces a warning and is skipped: the agent carries on.
MCP tools are async; each gets a synchronous twin (``ensure_sync_tool``) so sync callers work too.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from molx_agent.config import Settings, get_settings
from molx_agent.errors import ConfigError

logger = logging.getLogger(__name__)

TRANSPORTS = {"stdio": "stdio", "http": "streamable_http", "streamable_http": "streamable_http",
              "streamable-http": "streamable_http", "sse": "sse", "websocket": "websocket"}


def parse_mcp_config(data: Any, source: str = "<config>") -> dict[str, dict[str, Any]]:
    """Validate an MCP config document; returns ``{server: spec}`` (disabled servers included)."""
    if not isinstance(data, dict):
        raise ConfigError("invalid_mcp_config", f"{source}: expected a JSON object", value=type(data).__name__)
    servers = data.get("servers", data) if isinstance(data.get("servers", data), dict) else None
    if servers is None:
        raise ConfigError("invalid_mcp_config", f"{source}: 'servers' must be an object")
    out: dict[str, dict[str, Any]] = {}
    for name, spec in servers.items():
        if name.startswith("_") or name in ("enabled", "description"):
            continue
        if not isinstance(spec, dict):
            raise ConfigError("invalid_mcp_config", f"{source}: server {name!r} must be an object", value=name)
        transport = str(spec.get("transport", "stdio" if "command" in spec else "http")).lower()
        if transport not in TRANSPORTS:
            raise ConfigError("invalid_mcp_config", f"{source}: server {name!r} has unknown transport {transport!r}",
                              value=transport, hint="use stdio or http")
        if TRANSPORTS[transport] == "stdio" and not spec.get("command"):
            raise ConfigError("invalid_mcp_config", f"{source}: stdio server {name!r} needs a 'command'", value=name)
        if TRANSPORTS[transport] != "stdio" and not spec.get("url"):
            raise ConfigError("invalid_mcp_config", f"{source}: {transport} server {name!r} needs a 'url'", value=name)
        allowed = spec.get("allowed_tools")
        if allowed is not None and (not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed)):
            raise ConfigError("invalid_mcp_config", f"{source}: allowed_tools of {name!r} must be a list of names")
        out[name] = {**spec, "transport": TRANSPORTS[transport]}
    return out


def load_mcp_config(path: str | Path) -> dict[str, dict[str, Any]]:
    """The servers of an MCP config file; ``ConfigError`` naming the problem (missing, a directory, binary or
    not UTF-8, malformed or too deeply nested JSON, a bad server entry)."""
    from molx_agent.errors import RetroError
    from molx_agent.io_utils import read_input_text
    from molx_agent.limits import parse_json_text

    path = Path(path)
    if not path.exists():
        raise ConfigError("mcp_config_missing", f"MCP config file not found: {path}", value=str(path))
    try:
        data = parse_json_text(read_input_text(path, "MCP config file"), f"MCP config {path}")
    except RetroError as exc:
        message = f"{path}: malformed JSON: {exc.message}" if exc.code == "invalid_json" else exc.message
        raise ConfigError("invalid_mcp_config", message, value=str(path), hint=exc.hint) from None
    return parse_mcp_config(data, str(path))


def connection_for(spec: dict[str, Any]) -> dict[str, Any]:
    """The langchain-mcp-adapters connection dict for one server spec."""
    transport = spec["transport"]
    if transport == "stdio":
        command = spec["command"]
        if command in ("python", "python3"):
            command = sys.executable  # same environment as molx-agent
        conn: dict[str, Any] = {"transport": "stdio", "command": command, "args": [str(a) for a in spec.get("args", [])]}
        if spec.get("env"):
            conn["env"] = {str(k): str(v) for k, v in spec["env"].items()}
        if spec.get("cwd"):
            conn["cwd"] = str(spec["cwd"])
        return conn
    conn = {"transport": transport, "url": spec["url"]}
    if spec.get("headers"):
        conn["headers"] = dict(spec["headers"])
    return conn


class MCPToolLoader:
    """Loads allow-listed tools from the configured MCP servers."""

    def __init__(self, config_path: str | Path | None = None, *, settings: Settings | None = None,
                 config: dict[str, Any] | None = None, timeout: float = 30.0) -> None:
        self.settings = settings or get_settings()
        self.config_path = Path(config_path) if config_path else Path(self.settings.mcp_servers_config)
        self._config = config
        self.timeout = timeout
        self.warnings: list[str] = []

    def _warn(self, message: str) -> None:
        logger.info(message)  # surfaced through ``warnings`` (MolxAgent.warnings -> state errors, CLI stderr)
        self.warnings.append(message)

    def servers(self) -> dict[str, dict[str, Any]]:
        """Enabled servers of the configuration."""
        cfg = parse_mcp_config(self._config, "<config>") if self._config is not None else load_mcp_config(self.config_path)
        return {n: s for n, s in cfg.items() if s.get("enabled", True)}

    async def _load_server(self, name: str, spec: dict[str, Any]) -> list[Any]:
        from langchain_mcp_adapters.client import MultiServerMCPClient

        client = MultiServerMCPClient({name: connection_for(spec)})  # type: ignore[dict-item]
        tools = await asyncio.wait_for(client.get_tools(server_name=name), timeout=self.timeout)
        allowed = spec.get("allowed_tools")
        if allowed is None:
            self._warn(f"MCP server {name!r} has no allowed_tools list; none of its {len(tools)} tool(s) were "
                       f"registered (add \"allowed_tools\": [\"*\"] to allow all)")
            return []
        if "*" not in allowed:
            missing = sorted(set(allowed) - {t.name for t in tools})
            if missing:
                self._warn(f"MCP server {name!r} does not offer allowed tool(s): {', '.join(missing)}")
            tools = [t for t in tools if t.name in allowed]
        return tools

    async def aget_tools_by_server(self) -> dict[str, list[Any]]:
        """``{server: [tools]}``; a failing server becomes a warning and an empty list."""
        out: dict[str, list[Any]] = {}
        for name, spec in self.servers().items():
            try:
                out[name] = await self._load_server(name, spec)
            except TimeoutError:
                self._warn(f"MCP server {name!r} did not answer within {self.timeout:.0f} s; skipped")
                out[name] = []
            except Exception as exc:  # noqa: BLE001 - one bad server must not stop the agent
                self._warn(f"MCP server {name!r} failed to start or list its tools ({_root_cause(exc)}); skipped")
                out[name] = []
        return out

    async def aget_mcp_tools(self) -> list[Any]:
        by_server = await self.aget_tools_by_server()
        return [t for tools in by_server.values() for t in tools]

    def get_tools_by_server(self) -> dict[str, list[Any]]:
        from molx_agent.agents.tool_agent import ensure_sync_tool, run_coroutine_sync

        by_server = run_coroutine_sync(self.aget_tools_by_server())
        return {n: [ensure_sync_tool(t) for t in tools] for n, tools in by_server.items()}

    def get_mcp_tools(self) -> list[Any]:
        """All allow-listed tools of all enabled servers (synchronous)."""
        return [t for tools in self.get_tools_by_server().values() for t in tools]

    def load_into(self, registry: Any) -> list[str]:
        """Register the tools (category ``mcp``); returns the registered names. Clashes warn."""
        if self._config is None and not self.config_path.is_file():
            self._warn(f"MCP is enabled but the config file {self.config_path} does not exist; no MCP tools")
            return []
        servers = self.servers()
        added: list[str] = []
        for name, tools in self.get_tools_by_server().items():
            agents = servers.get(name, {}).get("allowed_agents", ["tool_agent"])
            for tool in tools:
                existing = registry._tools.get(tool.name)
                if existing is not None and existing.source == f"mcp:{name}":
                    registry.unregister(tool.name)  # reloading the same server
            before = list(registry.warnings)
            added += registry.register_mcp_tools(tools, server=name, allowed_agents=agents)
            self.warnings.extend(w for w in registry.warnings if w not in before)
        return added


def _root_cause(exc: BaseException) -> str:
    """``Type: message`` of the innermost exception (task groups wrap the real error)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if not str(exc) and (exc.__cause__ or exc.__context__) is not None:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return f"{type(exc).__name__}: {exc}"[:300]


__all__ = ["MCPToolLoader", "parse_mcp_config", "load_mcp_config", "connection_for", "TRANSPORTS"]

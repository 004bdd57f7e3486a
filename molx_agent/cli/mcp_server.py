"""``molx-agent mcp-server``: the skills and route search as MCP tools (stdio, or HTTP on 127.0.0.1)."""

from __future__ import annotations

from typing import Any

import typer


def run_mcp_server(http: int | None = None, host: str = "127.0.0.1", *, engine: Any = None) -> None:
    from molx_agent.mcp_server import serve

    serve(http_port=http, host=host, engine=engine)


def register(app: typer.Typer) -> None:
    @app.command("mcp-server")
    def mcp_server_cmd(
        http: int = typer.Option(
            None,
            "--http",
            min=1,
            max=65535,
            help="serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio",
        ),
        list_tools: bool = typer.Option(False, "--list-tools", help="print the tool names and exit"),
    ) -> None:
        """Serve the 13 retrosynthesis skills and search_routes as MCP tools (stdio by default)."""
        from molx_agent.cli.common import handle_errors

        @handle_errors
        def _run() -> None:
            if list_tools:
                from molx_agent.mcp_server import tool_names

                typer.echo("\n".join(tool_names()))
                return
            run_mcp_server(http)

        _run()

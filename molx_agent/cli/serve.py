"""``molx-agent serve [--host 127.0.0.1] [--port 8000] [--api-key KEY] [--checkpointer URL]``: the web app.

Binds 127.0.0.1 unless told otherwise; with an API key (``--api-key`` or ``MOLX_API_KEY``) every API route needs
``Authorization: Bearer KEY`` or ``X-API-Key: KEY``.  Needs the ``server`` extra (FastAPI, uvicorn).
"""

from __future__ import annotations

import typer


def check_server_installed() -> None:
    """``ConfigError("server_not_installed")`` when FastAPI or uvicorn is missing."""
    import importlib.util

    from molx_agent.errors import ConfigError

    missing = [m for m in ("fastapi", "uvicorn", "multipart") if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError("server_not_installed", f"the web server needs {', '.join(missing)}",
                          hint="install the extra: pip install 'molx-agent[server]'")


def run_serve(host: str = "127.0.0.1", port: int = 8000, *, api_key: str | None = None,
              checkpointer: str | None = None, max_searches: int | None = None, log_level: str = "info") -> None:
    """Build the app (errors in the settings or the checkpointer surface here) and serve it until stopped."""
    check_server_installed()
    import uvicorn

    from molx_agent.server.app import ServerSettings, create_app

    settings = ServerSettings.from_env(host=host, port=port, api_key=api_key, checkpointer_url=checkpointer,
                                       max_searches=max_searches)
    app = create_app(settings)
    if host not in ("127.0.0.1", "localhost", "::1") and not settings.api_key:
        typer.echo(f"Warning: serving on {host} without an API key; anyone who can reach this port can use it "
                   "(set MOLX_API_KEY)", err=True)
    typer.echo(f"molx-agent web app on http://{'[' + host + ']' if ':' in host else host}:{port}/ "
               f"(API docs at /docs; Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, timeout_graceful_shutdown=5,
                timeout_keep_alive=75)


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve_cmd(
        host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: this machine only)."),
        port: int = typer.Option(8000, "--port", "-p", help="TCP port."),
        api_key: str = typer.Option(None, "--api-key", help="Require this key on every API route (default: "
                                    "MOLX_API_KEY; none)."),
        checkpointer: str = typer.Option(None, "--checkpointer", help="Conversation store: postgresql://... or "
                                         "sqlite:///PATH (default: MOLX_CHECKPOINTER_URL, else MOLX_HOME/chat.sqlite, "
                                         "shared with `chat`)."),
        max_searches: int = typer.Option(None, "--max-searches", help="Route searches run at once (default 2; "
                                         "MOLX_MAX_SEARCHES)."),
    ) -> None:
        """Web app for chemists: chat, uploads, route and SAR reports, and an HTTP API (needs the server extra)."""
        from molx_agent.cli.common import fail, handle_errors

        if not 0 < port < 65536:
            fail("--port must be between 1 and 65535")
        if max_searches is not None and max_searches < 1:
            fail("--max-searches must be at least 1")
        if api_key is not None and not api_key.strip():
            fail("--api-key must not be empty")

        @handle_errors
        def go() -> None:
            run_serve(host, port, api_key=api_key, checkpointer=checkpointer, max_searches=max_searches)

        go()


__all__ = ["run_serve", "register", "check_server_installed"]

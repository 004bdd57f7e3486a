"""``molx-agent version``."""

from __future__ import annotations

import typer


def run_version() -> dict[str, str]:
    """Versions of molx-agent and its key libraries (imported lazily)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str] = {}
    for pkg in ("molx-agent", "rdkit", "langgraph", "langchain-core", "mcp"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def register(app: typer.Typer) -> None:
    @app.command("version")
    def version_cmd(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Show the versions of molx-agent and its key libraries."""
        from molx_agent.cli.common import emit_json

        info = run_version()
        if json_out:
            emit_json(info)
        else:
            for k, v in info.items():
                typer.echo(f"{k} {v}")

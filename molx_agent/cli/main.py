"""The ``molx-agent`` command line.

Each command lives in its own module under ``molx_agent.cli`` and exposes
``register(app)``; each command calls a ``run_*`` function that tests call too.
Heavy libraries (LangChain, LangGraph, RDKit) are imported inside the commands so
``molx-agent --help`` stays instant.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys

import typer

app = typer.Typer(
    name="molx-agent",
    help="molx-agent: an offline medicinal-chemistry copilot (SAR analysis and retrosynthesis).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: rendering with rich costs ~0.5 s of imports per --help
)

# Command modules, in the order they appear in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "run",
    "chat",
    "route",
    "sar",
    "skill",
    "batch",
    "retro",
    "session",
    "mcp_server",
    "doctor",
    "version",
)


@app.callback()
def _root() -> None:
    """molx-agent: an offline medicinal-chemistry copilot (SAR analysis and retrosynthesis)."""


def _register_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"molx_agent.cli.{name}").register(app)


_register_commands()


def main() -> None:
    """Console-script entry point."""
    logging.basicConfig(level=os.environ.get("MOLX_LOG_LEVEL", "WARNING"), stream=sys.stderr)
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

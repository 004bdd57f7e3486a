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
    "resume",
    "chat",
    "route",
    "sar",
    "skill",
    "batch",
    "retro",
    "session",
    "mcp_server",
    "serve",
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


class _CliLogFormatter(logging.Formatter):
    """``WARNING molx_agent.x: message``; tracebacks only with ``MOLX_DEBUG=1`` (the CLI never shows one)."""

    def __init__(self) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        if os.environ.get("MOLX_DEBUG"):
            return super().format(record)
        saved = record.exc_info, record.exc_text, record.stack_info
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        try:
            return super().format(record)
        finally:
            record.exc_info, record.exc_text, record.stack_info = saved


def configure_logging() -> None:
    """Log WARNING and above (``MOLX_LOG_LEVEL``) to stderr, without tracebacks unless ``MOLX_DEBUG`` is set."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_CliLogFormatter())
    wanted = os.environ.get("MOLX_LOG_LEVEL", "WARNING").strip().upper()
    level = logging.getLevelName(wanted)
    logging.basicConfig(level=level if isinstance(level, int) else logging.WARNING, handlers=[handler])
    if not isinstance(level, int):
        logging.getLogger("molx_agent").warning("MOLX_LOG_LEVEL=%s is not a log level (use DEBUG, INFO, WARNING, "
                                                "ERROR); using WARNING", wanted)


def main() -> None:
    """Console-script entry point."""
    configure_logging()
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

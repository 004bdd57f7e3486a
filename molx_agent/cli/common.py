"""Helpers shared by the CLI commands: error handling, JSON output, argument parsing.

Keep this module light: it is imported by ``molx-agent --help``.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_FAILURE = 1  # the command ran but could not do its job (e.g. skill success=false)
EXIT_USAGE = 2  # bad input: invalid SMILES, missing file, malformed JSON


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout."""
    from molx_agent.io_utils import dumps

    typer.echo(dumps(obj))


def fail(message: str, code: int = EXIT_USAGE, hint: str | None = None) -> None:
    """Print a clear error on stderr and exit non-zero (never a traceback)."""
    text = f"Error: {message}"
    if hint:
        text += f"\nHint: {hint}"
    typer.echo(text, err=True)
    raise typer.Exit(code)


def handle_errors(func: F) -> F:
    """Turn library errors into a clear message and a non-zero exit.

    Set ``MOLX_DEBUG=1`` to see the traceback of unexpected errors.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from molx_agent.errors import RetroError

        try:
            return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            typer.echo("Interrupted.", err=True)
            raise typer.Exit(130) from None
        except RetroError as exc:
            fail(str(exc), EXIT_USAGE)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            fail(f"{exc.strerror or exc}: {exc.filename}" if getattr(exc, "filename", None) else str(exc), EXIT_USAGE)
        except json.JSONDecodeError as exc:
            fail(f"malformed JSON: {exc}", EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001
            if os.environ.get("MOLX_DEBUG"):
                raise
            fail(f"internal error: {type(exc).__name__}: {exc}", EXIT_FAILURE, hint="set MOLX_DEBUG=1 for details")

    return wrapper  # type: ignore[return-value]


def parse_json_arg(text: str | None, file: str | Path | None = None, what: str = "--args") -> Any:
    """Parse a JSON argument given inline or as a file (``-`` reads stdin)."""
    if file is not None:
        if str(file) == "-":
            text = sys.stdin.read()
        else:
            path = Path(file)
            if not path.is_file():
                fail(f"{what} file not found: {path}")
            text = path.read_text(encoding="utf-8")
    if text is None or not text.strip():
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
    return None  # unreachable


__all__ = ["emit_json", "fail", "handle_errors", "parse_json_arg", "EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE"]

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


#: Error codes that say the command could not run now (exit 1), not that the input is wrong.
BUSY_CODES = frozenset({"session_locked"})


def exit_code_for_error(exc: BaseException) -> int:
    """The exit status of an error: 2 bad input (a ``RetroError``, a missing/unusable file or folder, malformed
    JSON, text that is not UTF-8, input nested too deeply), 1 anything else (the command could not do its job:
    a session locked by another process for too long, a full disk, an internal fault)."""
    from molx_agent.errors import RetroError

    if isinstance(exc, RetroError):  # the library's errors are about the request, except a busy session
        return EXIT_FAILURE if exc.code in BUSY_CODES else EXIT_USAGE
    if isinstance(exc, (FileNotFoundError, IsADirectoryError, NotADirectoryError, FileExistsError, PermissionError,
                        json.JSONDecodeError, UnicodeDecodeError, RecursionError)):
        return EXIT_USAGE
    return EXIT_FAILURE


def error_message(exc: BaseException) -> str:
    """One line naming the real problem (never a traceback; a file error names the user's path)."""
    from molx_agent.errors import RetroError

    if isinstance(exc, RetroError):
        return str(exc)
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename} is a directory, not a file"
    if isinstance(exc, NotADirectoryError):
        return f"cannot use {exc.filename}: a parent of it is a file, not a directory"
    if isinstance(exc, FileExistsError):
        return f"{exc.filename} exists and is not a directory"
    if isinstance(exc, FileNotFoundError):
        return f"file not found: {exc.filename}" if exc.filename else f"file not found: {exc}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {exc.filename}" if exc.filename else f"permission denied: {exc}"
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    if isinstance(exc, UnicodeDecodeError):
        return f"the input is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply"
    if isinstance(exc, MemoryError):
        return "out of memory (the input is probably too large)"
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        return f"{exc.strerror or exc}{where}"
    return f"internal error: {type(exc).__name__}: {exc}"


def handle_errors(func: F) -> F:
    """Turn every error into one clear line on stderr and a non-zero exit (never a traceback).

    Bad input exits 2, anything else 1 (:func:`exit_code_for_error`).  Set ``MOLX_DEBUG=1`` to see the
    traceback of unexpected errors.
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
        except Exception as exc:  # noqa: BLE001 - every error becomes a message and an exit status
            code = exit_code_for_error(exc)
            internal = code == EXIT_FAILURE and not isinstance(exc, (RetroError, OSError, MemoryError))
            if internal and os.environ.get("MOLX_DEBUG"):
                raise
            fail(error_message(exc), code, hint="set MOLX_DEBUG=1 for details" if internal else None)

    return wrapper  # type: ignore[return-value]


def parse_json_arg(text: str | None, file: str | Path | None = None, what: str = "--args") -> Any:
    """Parse a JSON argument given inline or as a file (``-`` reads stdin).

    Raises ``RetroError`` naming the problem: a missing file or a directory, binary/compressed data, text that
    is not UTF-8, malformed JSON, nesting deeper than ``MOLX_MAX_JSON_DEPTH`` (``molx_agent.limits``).
    """
    from molx_agent.io_utils import decode_text, read_input_text
    from molx_agent.limits import parse_json_text

    if file is not None:
        if str(file) == "-":
            text = decode_text(sys.stdin.buffer.read(), "stdin", what)
        else:
            text = read_input_text(file, f"{what} file")
    if text is None or not text.strip():
        return {}
    return parse_json_text(text, what)


__all__ = ["emit_json", "fail", "handle_errors", "parse_json_arg", "exit_code_for_error", "error_message", "EXIT_OK",
           "EXIT_FAILURE", "EXIT_USAGE"]

"""``molx-agent session COMMAND --session FILE [--args JSON | --args-file F]``: the interactive
retrosynthesis session (seed 001), one command per call, JSON on stdout.

Exit codes: 0 ok; 1 the command ran but its result says ``success: false`` (e.g. a sandbox attempt
that fails forward validation, a gate-failed commit); 2 bad input (unknown command, bad arguments,
missing/corrupted/foreign session file) with the message on stderr and the session file unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

SESSION_COMMANDS_HELP = (
    "init, next, context, explore, explore_fgi, try_bond, try_precursors, try_fgi, smart_cap, custom_cap, "
    "sandbox_list, sandbox_clear, select, commit, accept, skip, tree, status, finalize, report, export"
)


def run_session(command: str, session_file: str | Path, args: dict[str, Any] | None = None, *,
                engine: Any = None) -> dict[str, Any]:
    """Run one session command; raises ``RetroError`` on bad input (the file is then unchanged)."""
    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.session import RetroCmd

    return RetroCmd(session_file, engine=engine_or_default(engine)).execute(command, args or {})


def register(app: typer.Typer) -> None:
    @app.command("session")
    def session_cmd(
        command: str = typer.Argument(..., help=f"Session command: {SESSION_COMMANDS_HELP}."),
        session: Path = typer.Option(..., "--session", "-s", help="Session JSON file (created by init)."),
        args: str | None = typer.Option(None, "--args", "-a", help="Command arguments as a JSON object."),
        args_file: Path | None = typer.Option(None, "--args-file", help="Read the arguments from a JSON file "
                                              "('-' for stdin)."),
    ) -> None:
        """Interactive retrosynthesis session: one molecule at a time, sandbox, commit, export."""
        from molx_agent.cli.common import EXIT_FAILURE, emit_json, fail, handle_errors, parse_json_arg

        @handle_errors
        def _run() -> None:
            if args is not None and args_file is not None:
                fail("give either --args or --args-file, not both")
            params = parse_json_arg(args, args_file, what="--args")
            if not isinstance(params, dict):
                fail(f"--args must be a JSON object, got {type(params).__name__}")
            result = run_session(command, session, params)
            emit_json(result)
            if isinstance(result, dict) and result.get("success") is False:
                raise typer.Exit(EXIT_FAILURE)

        _run()


__all__ = ["run_session", "register"]

"""``molx-agent skill NAME --args JSON`` and ``molx-agent skill --list`` (seed 000 skills)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer


def load_args(args: str | None, args_file: str | Path | None) -> dict[str, Any]:
    """Parse ``--args`` / ``--args-file`` (``-`` reads stdin) into a dict; RetroError when malformed."""
    import sys

    from molx_agent.errors import DataError, ValidationError

    if args is not None and args_file is not None:
        raise ValidationError("invalid_args", "give --args or --args-file, not both")
    text = args
    if args_file is not None:
        if str(args_file) == "-":
            text = sys.stdin.read()
        else:
            path = Path(args_file)
            if not path.is_file():
                raise DataError("file_not_found", f"--args-file not found: {path}", value=str(path))
            text = path.read_text(encoding="utf-8")
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            "invalid_json",
            f"--args is not valid JSON ({exc.msg} at column {exc.colno})",
            value=text[:200],
            hint="on Windows shells prefer --args-file or `molx-agent batch`",
        ) from None
    if not isinstance(value, dict):
        raise ValidationError("invalid_args", "--args must be a JSON object", value=text[:200])
    return value


def run_skill_command(
    name: str, args: str | None = None, args_file: str | Path | None = None, *, engine: Any = None
) -> dict[str, Any]:
    """Run one skill on ``engine`` (a RetroEngine; default: the process-wide engine built from settings); returns the
    SkillResult dict (``success=false`` for every failure)."""
    from molx_agent.errors import RetroError
    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.skills import SkillResult, run_skill

    try:
        parsed = load_args(args, args_file)
    except RetroError as exc:
        return SkillResult.from_error(exc).to_dict()
    return run_skill(name, parsed, engine=engine_or_default(engine)).to_dict()


def run_skill_list() -> list[dict[str, Any]]:
    from molx_agent.interfaces.skills import list_skills

    return list_skills()


def register(app: typer.Typer) -> None:
    @app.command("skill")
    def skill_cmd(
        name: str = typer.Argument(None, help="skill name (see --list)"),
        args: str = typer.Option(None, "--args", help="skill arguments as a JSON object"),
        args_file: str = typer.Option(
            None, "--args-file", "--args_file", help="JSON file with the arguments ('-' = stdin)"
        ),
        list_: bool = typer.Option(False, "--list", help="list the skills with their parameters"),
    ) -> None:
        """Run one retrosynthesis skill; prints the SkillResult JSON {success, data, error}.

        Exit status: 0 success, 1 success=false, 2 malformed arguments.
        """
        from molx_agent.cli.common import EXIT_FAILURE, EXIT_USAGE, emit_json, handle_errors

        @handle_errors
        def _run() -> None:
            if list_:
                emit_json(run_skill_list())
                return
            if not name:
                from molx_agent.cli.common import fail

                fail("give a skill name or --list", hint="molx-agent skill --list")
            result = run_skill_command(name, args, args_file)
            emit_json(result)
            if not result["success"]:
                typer.echo(f"Error: {result['error']}", err=True)
                bad_input = result.get("error_code") in ("invalid_json", "file_not_found")
                raise typer.Exit(EXIT_USAGE if bad_input else EXIT_FAILURE)

        _run()

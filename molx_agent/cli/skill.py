"""``molx-agent skill NAME --args JSON`` and ``molx-agent skill --list`` (seed 000 skills)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def load_args(args: str | None, args_file: str | Path | None) -> dict[str, Any]:
    """Parse ``--args`` / ``--args-file`` (``-`` reads stdin) into a dict; RetroError when malformed.

    The error names the real problem: both options given, a missing file or a directory, binary/compressed
    data, text that is not UTF-8, malformed JSON, nesting deeper than ``MOLX_MAX_JSON_DEPTH``, not an object.
    """
    import sys

    from molx_agent.errors import ValidationError
    from molx_agent.io_utils import decode_text, read_input_text
    from molx_agent.limits import parse_json_text

    if args is not None and args_file is not None:
        raise ValidationError("invalid_args", "give --args or --args-file, not both")
    text = args
    what = "--args"
    if args_file is not None:
        what = "--args-file"
        if str(args_file) == "-":
            text = decode_text(sys.stdin.buffer.read(), "stdin", "--args-file")
        else:
            text = read_input_text(args_file, "--args-file")
    if text is None or not text.strip():
        return {}
    try:
        value = parse_json_text(text, what)
    except ValidationError as exc:
        if exc.code == "invalid_json":
            exc.hint = "on Windows shells prefer --args-file or `molx-agent batch`"
        raise
    if not isinstance(value, dict):
        raise ValidationError("invalid_args", f"{what} must be a JSON object", value=text[:200])
    return value


#: Skill failures caused by the arguments (exit 2) besides the input codes of ``molx_agent.errors``.
ARGUMENT_ERROR_CODES = frozenset({"invalid_args", "unknown_skill", "invalid_task"})
#: Error classes that mean the input was wrong (a molecule, a reaction, a file, a value).
INPUT_ERROR_TYPES = frozenset({"ValidationError", "ChemistryError", "DataError", "ConfigError"})


def exit_code_for_result(result: dict[str, Any]) -> int:
    """0 success; 2 the skill failed because of its input (bad SMILES, arguments, unknown skill, unreadable
    argument file); 1 any other failure (the engine could not do it)."""
    from molx_agent.errors import INPUT_ERROR_CODES

    if result.get("success"):
        return 0
    code = result.get("error_code")
    kind = ((result.get("data") or {}).get("error_details") or {}).get("error_type")
    if code in INPUT_ERROR_CODES or code in ARGUMENT_ERROR_CODES or kind in INPUT_ERROR_TYPES:
        return 2
    return 1


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

        Exit status: 0 success, 2 bad input (arguments, SMILES, unknown skill), 1 any other failure.
        """
        from molx_agent.cli.common import emit_json, handle_errors

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
                raise typer.Exit(exit_code_for_result(result))

        _run()

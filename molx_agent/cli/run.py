"""``molx-agent run --query Q [--data FILE]... [--output-dir D] [--json] [--llm rules|openai]``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

#: Data files ``--data`` accepts (same list as the SAR readers).
DATA_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".smi", ".xlsx", ".xlsm", ".sdf", ".sd")
LLM_CHOICES = ("rules", "openai", "auto")


def check_data_files(files: list[str] | None) -> list[str]:
    """Each ``--data`` file must exist, be a readable file within the size limit and have a supported type,
    and a text file must really be text (``DataError`` naming the problem otherwise: a directory, gzip or
    binary data, an encoding that is not UTF-8/UTF-16, ... see ``molx_agent.io_utils``)."""
    from molx_agent.errors import DataError
    from molx_agent.io_utils import check_input_file
    from molx_agent.sar.io import check_data_file_content

    out = []
    for f in files or []:
        path = check_input_file(f, "data file", data=True)
        if path.suffix.lower() not in DATA_SUFFIXES:
            raise DataError("unsupported_file", f"unsupported data file type {path.suffix or '(none)'!r}: {f}",
                            value=f, hint=f"use one of {', '.join(DATA_SUFFIXES)}")
        check_data_file_content(path)
        out.append(str(path))
    return out


def check_output_dir(output_dir: str | Path) -> Path:
    """``output_dir`` created if needed; ``DataError`` (``output_dir_is_file``, ``output_dir_unwritable``)."""
    from molx_agent.io_utils import ensure_output_dir

    return ensure_output_dir(output_dir)


def run_query(
    query: str,
    data: list[str] | None = None,
    *,
    output_dir: str | Path | None = None,
    llm: str | None = None,
    agent: Any = None,
) -> dict[str, Any]:
    """Answer one query; returns the JSON document ``--json`` prints.

    Keys: ``query``, ``intent``, ``intent_confidence``, ``intent_reasoning``, ``language``, ``tasks``,
    ``results``, ``final_answer``, ``report_paths``, ``errors``.
    """
    from molx_agent.errors import DataError, ValidationError
    from molx_agent.limits import check_query

    query = check_query(query)  # not a string, empty, too long: ValidationError
    if llm is not None and llm not in LLM_CHOICES:
        raise ValidationError("invalid_llm_provider", f"--llm must be one of {', '.join(LLM_CHOICES)}", value=llm)
    files = check_data_files(data)
    if agent is None:
        from molx_agent.agents.molx import MolxAgent
        from molx_agent.config import get_settings

        overrides: dict[str, Any] = {}
        if output_dir is not None:
            overrides["output_dir"] = check_output_dir(output_dir)
        if llm is not None:
            overrides["llm_provider"] = llm
        settings = get_settings(**overrides) if overrides else get_settings()
        reports = Path(settings.output_dir).expanduser()
        if reports.exists() and not reports.is_dir():  # fail now, not after the work (MOLX_OUTPUT_DIR)
            raise DataError("output_dir_is_file", f"the output directory {reports} (MOLX_OUTPUT_DIR) is a file",
                            value=str(reports), hint="set MOLX_OUTPUT_DIR or --output-dir to a directory")
        agent = MolxAgent(settings=settings)
    state = agent.invoke(query, files=files)
    return {
        "query": query,
        "intent": state.get("intent"),
        "intent_confidence": state.get("intent_confidence"),
        "intent_reasoning": state.get("intent_reasoning", []),
        "language": state.get("language", "en"),
        "tasks": state.get("tasks", {}),
        "results": state.get("results", {}),
        "final_answer": state.get("final_answer", ""),
        "report_paths": state.get("report_paths", []),
        "errors": state.get("errors", []),
    }


def exit_code_for(result: dict[str, Any]) -> int:
    """0 when every task is done (or skipped because not built / unsupported intent); 2 when a task failed because
    of bad input (an invalid SMILES, an unusable data file: ``molx_agent.errors.INPUT_ERROR_CODES``); 1 when any
    other task failed."""
    from molx_agent.errors import INPUT_ERROR_CODES

    tasks = result.get("tasks") or {}
    failed = [tid for tid, t in tasks.items() if t.get("status") == "failed"]
    if not failed:
        return 0
    results = result.get("results") or {}
    codes = {((results.get(tid) or {}).get("error") or {}).get("code") for tid in failed}
    return 2 if codes & INPUT_ERROR_CODES else 1


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_cmd(
        query: str = typer.Option(..., "--query", "-q", help="Your question, in English or Chinese."),
        data: list[str] = typer.Option(None, "--data", "-d", help="Compound data file (CSV/TSV/Excel/SDF); repeatable."),
        output_dir: str = typer.Option(None, "--output-dir", "-o", help="Where reports are written (default ./outputs)."),
        json_out: bool = typer.Option(False, "--json", help="Print one JSON object instead of prose."),
        llm: str = typer.Option(None, "--llm", help="rules (offline) or openai; default from MOLX_LLM_PROVIDER (auto)."),
    ) -> None:
        """Answer one question (molecule properties, retrosynthesis, SAR of a data file, ...)."""
        from molx_agent.cli.common import emit_json, handle_errors

        @handle_errors
        def go() -> int:
            result = run_query(query, data, output_dir=output_dir, llm=llm)
            if json_out:
                emit_json(result)
            else:
                typer.echo(result["final_answer"])
                for err in result["errors"]:
                    if err.get("code") == "warning":
                        typer.echo(f"Warning: {err['message']}", err=True)
            return exit_code_for(result)

        code = go()
        if code:
            raise typer.Exit(code)


__all__ = ["run_query", "check_data_files", "check_output_dir", "exit_code_for", "register", "DATA_SUFFIXES"]

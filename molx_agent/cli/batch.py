"""``molx-agent batch TASKS.json``: run many skills from a file (no shell escaping of SMILES).

The file holds ``[{"skill": NAME, "args": {...}}, ...]`` (seed 000), or ``{"tasks": [...]}``.
A failing task does not stop the batch; there is exactly one result per task, in order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer


def load_tasks(task_file: str | Path) -> list[Any]:
    from molx_agent.errors import DataError

    path = Path(task_file)
    if not path.is_file():
        raise DataError("file_not_found", f"task file not found: {path}", value=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(
            "invalid_json", f"task file {path} is not valid JSON: {exc}", value=str(path)
        ) from None
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    if not isinstance(data, list):
        raise DataError(
            "invalid_task_file",
            f"task file {path} must hold a JSON list of {{skill, args}} objects",
            value=str(path),
            hint='[{"skill": "analyze_molecule", "args": {"smiles": "CCO"}}]',
        )
    return data


def run_one(index: int, task: Any, engine: Any = None) -> dict[str, Any]:
    from molx_agent.errors import SkillError
    from molx_agent.interfaces.skills import SkillResult, run_skill

    if not isinstance(task, dict) or not isinstance(task.get("skill"), str):
        err = SkillError(
            "invalid_task", f"task {index}: needs a 'skill' name and an 'args' object", value=task
        )
        return {
            "index": index,
            "skill": task.get("skill") if isinstance(task, dict) else None,
            **SkillResult.from_error(err).to_dict(),
        }
    args = task.get("args", {})
    extra = sorted(set(task) - {"skill", "args", "id"})
    if extra:
        err = SkillError("invalid_task", f"task {index}: unexpected keys {extra}", value=extra)
        result = SkillResult.from_error(err).to_dict()
    else:
        result = run_skill(task["skill"], args, engine=engine).to_dict()
    out = {"index": index, "skill": task["skill"]}
    if "id" in task:
        out["id"] = task["id"]
    return {**out, **result}


def run_batch(task_file: str | Path, output: str | Path | None = None, *, engine: Any = None) -> dict[str, Any]:
    """Run every task of ``task_file`` on one engine (``engine``; default: the process-wide engine); returns
    ``{n_tasks, n_succeeded, n_failed, results}``."""
    from molx_agent.interfaces._engine import engine_or_default

    tasks = load_tasks(task_file)
    engine = engine_or_default(engine)
    results = [run_one(i, t, engine) for i, t in enumerate(tasks)]
    report = {
        "task_file": str(task_file),
        "n_tasks": len(tasks),
        "n_succeeded": sum(1 for r in results if r["success"]),
        "n_failed": sum(1 for r in results if not r["success"]),
        "results": results,
    }
    if output is not None:
        from molx_agent.io_utils import atomic_write_json

        report["output"] = str(atomic_write_json(output, report))
    return report


def register(app: typer.Typer) -> None:
    @app.command("batch")
    def batch_cmd(
        task_file: str = typer.Argument(..., help='JSON file: [{"skill": NAME, "args": {...}}, ...]'),
        output: str = typer.Option(None, "--output", "-o", help="also write the results to this JSON file"),
    ) -> None:
        """Run many skills from a JSON task file; one result per task, a failure never stops the batch.

        Exit status: 0 all succeeded, 1 some task failed, 2 unreadable task file.
        """
        from molx_agent.cli.common import EXIT_FAILURE, emit_json, handle_errors

        @handle_errors
        def _run() -> None:
            report = run_batch(task_file, output)
            emit_json(report)
            if report["n_failed"]:
                typer.echo(f"{report['n_failed']} of {report['n_tasks']} task(s) failed", err=True)
                raise typer.Exit(EXIT_FAILURE)

        _run()

"""``molx-agent route TARGET``: multi-step route search from a SMILES or a known name.

Writes ``routes.json`` (every route as an AiZynthFinder-style reaction tree plus the search summary)
and the HTML/Markdown route report of the best route (or of the best partial route when unsolved)
through :func:`molx_agent.retro.report.render_route_report`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from molx_agent.retro.search_types import SearchConfig

#: the search defaults, written once in ``SearchConfig`` (the CLI options and the MCP server show these)
DEFAULTS = SearchConfig()


def resolve_target(target: str) -> tuple[str, str]:
    """``(smiles, name)`` for a name from the packaged table or a SMILES (``retro.targets.resolve_target``)."""
    from molx_agent.retro.targets import resolve_target as _resolve

    return _resolve(target)


def route_engine(engine: Any = None, *, stock: str | None = None, model: Any = None) -> Any:
    """The engine a route search runs on: ``engine`` (default: the process-wide engine; with ``model``, an engine
    on that model) on ``stock`` when given (same model and configuration; the stock loads now, so a bad spec or an
    unreadable file fails before the model loads)."""
    from molx_agent.interfaces._engine import engine_or_default, engine_with_stock
    from molx_agent.retro.engine import RetroEngine

    if engine is None and model is not None:
        engine = RetroEngine(model=model, stock=stock)
        engine.stock  # noqa: B018 - load (and check) the stock now
        return engine
    return engine_with_stock(engine_or_default(engine), stock)


def run_route(
    target: str,
    *,
    stock: str | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    n_routes: int | None = None,
    max_expansions: int | None = None,
    output_dir: str | Path | None = None,
    model: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    language: str = "en",
    write_files: bool = True,
    engine: Any = None,
) -> dict[str, Any]:
    """Search routes to ``target`` and write ``routes.json`` and the route report.

    ``engine``: the :class:`~molx_agent.retro.engine.RetroEngine` to search with (default: the process-wide engine;
    ``model`` builds one on that single-step model); ``stock`` binds another stock to it.  Limits left ``None`` are
    the engine's ``SearchConfig`` values (the defaults written once in ``retro.search_types.SearchConfig``).

    Returns :func:`molx_agent.retro.payload.search_payload` (``target``, ``target_smiles``, ``target_name``,
    ``solved``, ``routes`` (reaction trees, best first), ``partial_route`` (a tree, when unsolved),
    ``n_expansions``, ``time_s``, ``stock``, ``reasons``, ``stopped_by``, ``route_summaries``, ``summary``) plus
    ``output_dir`` and ``files`` (``routes_json``, ``html``, ``md``, ...).
    """
    from molx_agent.config import get_settings
    from molx_agent.io_utils import atomic_write_json, timestamped_dir
    from molx_agent.retro.payload import search_payload

    smiles, name = resolve_target(target)
    eng = route_engine(engine, stock=stock, model=model)  # bad stock spec/file fails before the model loads
    result = eng.search(smiles, time_limit=time_limit, max_expansions=max_expansions, max_depth=max_depth,
                        n_routes=n_routes, progress=progress, name=name)
    payload = search_payload(result, target=target, name=name, language=language)
    files: dict[str, str] = {}
    if write_files:
        out = Path(output_dir) if output_dir else timestamped_dir(get_settings().output_dir, f"route_{name or 'target'}")
        out.mkdir(parents=True, exist_ok=True)
        payload["output_dir"] = str(out)
        files["routes_json"] = str(atomic_write_json(out / "routes.json", {k: v for k, v in payload.items() if k != "files"}))
        best = result.best_route
        if best is not None:
            files.update(write_route_report(best, out, name=name, result=result, language=language,
                                            summary=payload["summary"]))
    payload["files"] = files
    return payload


def write_route_report(graph: Any, out: Path, *, name: str, result: Any, language: str, summary: str) -> dict[str, str]:
    """The shared route report (``retro.report``) of one route."""
    from molx_agent.retro.report import render_route_report

    extra = {
        "language": language,
        "summary": summary,
        "stock": result.stock,
        "n_expansions": result.n_expansions,
        "time_s": round(result.time_s, 2),
        "solved": result.solved,
        "n_routes_found": len(result.routes),
        "stopped_by": result.stopped_by,
    }
    if result.reasons:
        extra["reasons"] = "; ".join(result.reasons)
    return {k: str(v) for k, v in render_route_report(graph, out, name=name, extra=extra).items()}


def _print_text(payload: dict[str, Any]) -> None:
    from molx_agent.retro.export import from_aizynth_tree

    typer.echo(payload["summary"])
    tree = payload["routes"][0] if payload["routes"] else payload["partial_route"]
    if tree:
        typer.echo("")
        typer.echo("Best route:" if payload["solved"] else "Best partial route:")
        typer.echo(from_aizynth_tree(tree).to_text())
    if not payload["solved"]:
        for reason in payload["reasons"]:
            typer.echo(f"  - {reason}")
    files = payload.get("files") or {}
    if files:
        typer.echo("")
        for key in ("html", "routes_json"):
            if key in files:
                typer.echo(f"{'Report' if key == 'html' else 'Routes'}: {files[key]}")


def register(app: typer.Typer) -> None:
    @app.command("route")
    def route_cmd(
        target: str = typer.Argument(..., help="Target molecule: a SMILES or a known name (e.g. paracetamol)."),
        stock: str = typer.Option(None, "--stock", help="'zinc' (building blocks <= 25 heavy atoms), 'zinc-all', 'common', a stock file (.smi/.txt/.csv[.gz]) or a "
                                  "comma-separated list. Default: packaged common reagents + ZINC in-stock."),
        time_limit: float = typer.Option(DEFAULTS.time_limit, "--time-limit", min=0.1,
                                         help="Search time limit in seconds."),
        max_depth: int = typer.Option(DEFAULTS.max_depth, "--max-depth", min=1,
                                      help="Maximum number of steps on any branch."),
        n_routes: int = typer.Option(DEFAULTS.n_routes, "--n-routes", min=1, help="Number of routes to return."),
        max_expansions: int = typer.Option(DEFAULTS.max_expansions, "--max-expansions", min=1,
                                           help="Maximum molecule expansions."),
        output_dir: Path = typer.Option(None, "--output-dir", help="Where to write routes.json and the report."),
        json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        lang: str = typer.Option("en", "--lang", help="Language of the summary and report: en or zh."),
    ) -> None:
        """Plan multi-step synthesis routes to TARGET ending in purchasable materials."""
        from molx_agent.cli.common import emit_json, fail, handle_errors

        if lang not in ("en", "zh"):
            fail(f"--lang must be 'en' or 'zh', not {lang!r}")

        @handle_errors
        def _go() -> None:
            kwargs = dict(stock=stock, time_limit=time_limit, max_depth=max_depth, n_routes=n_routes,
                          max_expansions=max_expansions, output_dir=output_dir, language=lang)
            if sys.stderr.isatty():
                payload = _run_with_progress(target, kwargs)
            else:
                payload = run_route(target, **kwargs)
            if json_out:
                emit_json(payload)
            else:
                _print_text(payload)

        _go()


def _run_with_progress(target: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    limit = float(kwargs["time_limit"])
    with Progress(TextColumn("[bold]route search"), BarColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("loading model", total=limit)

        def progress(info: dict[str, Any]) -> None:
            state = f"{info['n_routes']} route(s)" if info.get("solved") else "searching"
            bar.update(task, completed=min(limit, info["elapsed_s"]),
                       description=f"{info['n_expansions']} expansions, {state}")

        return run_route(target, progress=progress, **kwargs)


__all__ = ["run_route", "route_engine", "resolve_target", "register", "DEFAULTS"]

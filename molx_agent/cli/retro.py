"""``molx-agent retro plan|run|decide|explore|compare|finalize|status``: the pause/resume pipeline.

Every command prints one JSON document on stdout.  ``run`` and ``decide`` print the
DecisionContext of the next decision point (``status: paused``) or the route's end state.
Options accept both spellings (``--session-dir`` / ``--session_dir`` ...), as in seed 000.
Exit status: 0 ok (paused or completed), 1 the route failed or hit MAX_TOTAL_TASKS,
2 bad input (invalid SMILES, rejected decision, exhausted budget, missing session).
Each ``run_retro_*`` that runs skills builds the RetroEngine (``engine=``; default: the process-wide engine) and
passes it to the pipeline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

retro_app = typer.Typer(
    name="retro",
    help="Task-driven retrosynthesis pipeline: plan -> run -> (explore) -> decide ... -> finalize.",
    no_args_is_help=True,
    add_completion=False,
)

SESSION_OPT = ("--session-dir", "--session_dir")
ROUTE_OPT = ("--route", "--route-id", "--route_id")


def run_retro_plan(
    target_smiles: str,
    output_dir: str | None = None,
    *,
    name: str = "",
    n_routes: int = 1,
    stock: str | None = None,
    language: str = "en",
    proposals: bool = True,
    auto: bool = False,
    engine: Any = None,
) -> dict[str, Any]:
    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.pipeline.service import plan_session, run_route

    engine = engine_or_default(engine)
    out = plan_session(
        target_smiles,
        output_dir,
        name=name,
        n_routes=n_routes,
        stock=stock,
        language=language,
        with_proposals=proposals,
        engine=engine,
    )
    if auto:
        out["runs"] = [run_route(out["session_dir"], r["route_id"], auto=True, engine=engine) for r in out["routes"]]
    return out


def run_retro_run(
    session_dir: str, route: str | None = None, *, auto: bool = False, engine: Any = None
) -> dict[str, Any]:
    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.pipeline.service import run_route

    return run_route(session_dir, route, auto=auto, engine=engine_or_default(engine))


def run_retro_decide(
    session_dir: str,
    route: str | None,
    decision: str | dict[str, Any] | None = None,
    decision_file: str | None = None,
    *,
    engine: Any = None,
) -> dict[str, Any]:
    from molx_agent.errors import ValidationError
    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.pipeline.service import decide_route

    if decision_file is not None:
        path = Path(decision_file)
        if not path.is_file():
            raise ValidationError("file_not_found", f"--decision-file not found: {path}", value=str(path))
        decision = path.read_text(encoding="utf-8")
    if decision is None:
        raise ValidationError(
            "invalid_instruction",
            "give --decision JSON or --decision-file",
            hint='{"task_id": "...", "action": "use_default"}',
        )
    return decide_route(session_dir, route, decision, engine=engine_or_default(engine))


def run_retro_explore(
    session_dir: str, route: str | None, tool: str, params: str | dict[str, Any] | None = None, *,
    engine: Any = None,
) -> dict[str, Any]:
    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.pipeline.service import explore_route

    return explore_route(session_dir, route, tool, params, engine=engine_or_default(engine))


def run_retro_compare(session_dir: str, routes: str | None = None) -> dict[str, Any]:
    from molx_agent.interfaces.pipeline.service import compare_routes

    ids = [r.strip() for r in routes.split(",") if r.strip()] if routes else None
    return compare_routes(session_dir, ids)


def run_retro_finalize(
    session_dir: str, route: str | None = None, output_dir: str | None = None
) -> dict[str, Any]:
    from molx_agent.interfaces.pipeline.service import finalize_route

    return finalize_route(session_dir, route, output_dir)


def run_retro_status(session_dir: str, route: str | None = None) -> dict[str, Any]:
    from molx_agent.interfaces.pipeline.service import session_status

    return session_status(session_dir, route)


def _emit_route(out: dict[str, Any]) -> None:
    from molx_agent.cli.common import EXIT_FAILURE, emit_json

    emit_json(out)
    if out.get("status") in ("failed", "limit_reached"):
        msg = (out.get("error") or {}).get("message") or "; ".join(out.get("reasons") or []) or out["status"]
        typer.echo(f"Route {out.get('route_id')}: {out['status']}: {msg}", err=True)
        raise typer.Exit(EXIT_FAILURE)


@retro_app.command("plan")
def plan_cmd(
    target_smiles: str = typer.Option(
        ..., "--target-smiles", "--target_smiles", "--target", help="target SMILES (or a known compound name)"
    ),
    output_dir: str = typer.Option(None, "--output-dir", "--output_dir", help="session directory to create"),
    name: str = typer.Option("", "--name", help="name of the target for reports"),
    n_routes: int = typer.Option(
        1, "--n-routes", "--n_routes", min=1, max=20, help="number of routes to seed"
    ),
    stock: str = typer.Option(None, "--stock", help="stock: 'zinc', stock file(s), comma-separated"),
    language: str = typer.Option("en", "--language", "--lang", help="language of report prose: en | zh"),
    proposals: bool = typer.Option(
        True, "--proposals/--no-proposals", help="add single-step model proposals to disconnection decisions"
    ),
    auto: bool = typer.Option(False, "--auto", help="then run every route to the end with use_default"),
) -> None:
    """Create a session directory and its initial route(s) with seed tasks (STRATEGY, ANALYZE, DISCONNECT).

    With --auto every route is then run to the end; the exit status is 1 when a route failed or hit
    MAX_TOTAL_TASKS (as for `retro run --auto`).
    """
    from molx_agent.cli.common import EXIT_FAILURE, emit_json, handle_errors

    def _run() -> None:
        out = run_retro_plan(
            target_smiles,
            output_dir,
            name=name,
            n_routes=n_routes,
            stock=stock,
            language=language,
            proposals=proposals,
            auto=auto,
        )
        emit_json(out)
        bad = [r for r in out.get("runs", []) if r.get("status") in ("failed", "limit_reached")]
        for r in bad:
            msg = (r.get("error") or {}).get("message") or "; ".join(r.get("reasons") or []) or r["status"]
            typer.echo(f"Route {r.get('route_id')}: {r['status']}: {msg}", err=True)
        if bad:
            raise typer.Exit(EXIT_FAILURE)

    handle_errors(_run)()


@retro_app.command("run")
def run_cmd(
    session_dir: str = typer.Option(..., *SESSION_OPT, help="session directory from `retro plan`"),
    route: str = typer.Option(None, *ROUTE_OPT, help="route id (optional when the session has one route)"),
    auto: bool = typer.Option(
        False, "--auto", help="decide every decision point with use_default, to the end"
    ),
) -> None:
    """Run tasks until the next decision point; prints its DecisionContext (status=paused)."""
    from molx_agent.cli.common import handle_errors

    handle_errors(lambda: _emit_route(run_retro_run(session_dir, route, auto=auto)))()


@retro_app.command("decide")
def decide_cmd(
    session_dir: str = typer.Option(..., *SESSION_OPT),
    route: str = typer.Option(None, *ROUTE_OPT),
    decision: str = typer.Option(
        None, "--decision", help='DecisionInstruction JSON: {"task_id", "action", "params"}'
    ),
    decision_file: str = typer.Option(
        None, "--decision-file", "--decision_file", help="DecisionInstruction JSON file"
    ),
) -> None:
    """Submit a DecisionInstruction for the pending decision and resume to the next one."""
    from molx_agent.cli.common import handle_errors

    handle_errors(lambda: _emit_route(run_retro_decide(session_dir, route, decision, decision_file)))()


@retro_app.command("explore")
def explore_cmd(
    session_dir: str = typer.Option(..., *SESSION_OPT),
    route: str = typer.Option(None, *ROUTE_OPT),
    tool: str = typer.Option(
        ..., "--tool", help="exploration tool id (see the DecisionContext's exploration_tools)"
    ),
    params: str = typer.Option(None, "--params", help="tool parameters as a JSON object"),
) -> None:
    """Call a read-only exploration tool at the pending decision (budget: 5 calls per decision)."""
    from molx_agent.cli.common import emit_json, handle_errors

    handle_errors(lambda: emit_json(run_retro_explore(session_dir, route, tool, params)))()


def format_comparison(comp: dict[str, Any]) -> str:
    """A plain-text table of :func:`run_retro_compare`'s routes, best first."""
    rows = {r["route_id"]: r for r in comp["routes"]}
    head = f"{'route':<10} {'status':<13} {'steps':>5} {'LLS':>4} {'in stock':>9} {'feas.':>6}  starting materials"
    lines = [f"Target: {comp['target_smiles']}", head, "-" * len(head)]
    for rid in comp["ranking"]:
        r = rows[rid]
        feas = r["feasibility"]["mean_feasibility_score"]
        feas_text = f"{feas:.2f}" if feas is not None else "-"
        sms = ", ".join(f"{s['smiles']} [{s['source'] or s['status']}]" for s in r["starting_materials"])
        lines.append(
            f"{rid:<10} {r['status']:<13} {r['n_steps']:>5} {r['longest_linear_sequence']:>4} "
            f"{r['availability'].split(' ')[0]:>9} {feas_text:>6}  {sms}"
        )
    lines.append(f"Ranking: {comp['ranking_rule']}")
    return "\n".join(lines)


@retro_app.command("compare")
def compare_cmd(
    session_dir: str = typer.Option(..., *SESSION_OPT),
    routes: str = typer.Option(None, "--routes", help="comma-separated route ids (default: all)"),
    table: bool = typer.Option(False, "--table", help="print a text table instead of JSON"),
) -> None:
    """Compare routes side by side: steps, starting materials, availability, feasibility."""
    from molx_agent.cli.common import emit_json, handle_errors

    def _run() -> None:
        comp = run_retro_compare(session_dir, routes)
        if table:
            typer.echo(format_comparison(comp))
        else:
            emit_json(comp)

    handle_errors(_run)()


@retro_app.command("finalize")
def finalize_cmd(
    session_dir: str = typer.Option(..., *SESSION_OPT),
    route: str = typer.Option(None, *ROUTE_OPT),
    output_dir: str = typer.Option(
        None, "--output-dir", "--output_dir", help="report directory (default SESSION_DIR/reports/ROUTE)"
    ),
) -> None:
    """Build the RetroGraph and write the report: SYNTHESIS_REPORT.html/.md, tree.json, retro_graph.json."""
    from molx_agent.cli.common import emit_json, handle_errors

    handle_errors(lambda: emit_json(run_retro_finalize(session_dir, route, output_dir)))()


@retro_app.command("status")
def status_cmd(
    session_dir: str = typer.Option(..., *SESSION_OPT),
    route: str = typer.Option(None, *ROUTE_OPT, help="show this route's tasks, decisions and tree"),
) -> None:
    """Show the session's routes: status, tasks, pending decision."""
    from molx_agent.cli.common import emit_json, handle_errors

    handle_errors(lambda: emit_json(run_retro_status(session_dir, route)))()


@retro_app.command("skill")
def skill_cmd(
    name: str = typer.Argument(..., help="skill name (molx-agent skill --list)"),
    args: str = typer.Option(None, "--args", help="skill arguments as a JSON object"),
    args_file: str = typer.Option(None, "--args-file", "--args_file", help="JSON file with the arguments"),
) -> None:
    """Same as `molx-agent skill` (all 9 seed sub-commands live under `retro` too)."""
    from molx_agent.cli.common import EXIT_FAILURE, EXIT_USAGE, emit_json, handle_errors
    from molx_agent.cli.skill import run_skill_command

    def _run() -> None:
        result = run_skill_command(name, args, args_file)
        emit_json(result)
        if not result["success"]:
            typer.echo(f"Error: {result['error']}", err=True)
            raise typer.Exit(
                EXIT_USAGE if result.get("error_code") in ("invalid_json", "file_not_found") else EXIT_FAILURE
            )

    handle_errors(_run)()


@retro_app.command("batch")
def batch_cmd(
    task_file: str = typer.Argument(..., help='JSON file: [{"skill": NAME, "args": {...}}, ...]'),
) -> None:
    """Same as `molx-agent batch`."""
    from molx_agent.cli.batch import run_batch
    from molx_agent.cli.common import EXIT_FAILURE, emit_json, handle_errors

    def _run() -> None:
        report = run_batch(task_file)
        emit_json(report)
        if report["n_failed"]:
            raise typer.Exit(EXIT_FAILURE)

    handle_errors(_run)()


def register(app: typer.Typer) -> None:
    app.add_typer(retro_app, name="retro")

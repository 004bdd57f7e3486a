"""The pipeline's commands as plain functions: plan, run, decide, explore, status, compare, finalize.

The CLI (``molx-agent retro ...``) and the MCP server call these, passing the RetroEngine they built (the commands
that run skills take ``engine=``; default: the process-wide engine); each loads the session,
works on one route through the :class:`Orchestrator`, saves atomically and returns a JSON-able
dict.  A rejected decision or exploration raises a :class:`~molx_agent.errors.RetroError` and
leaves the session files unchanged.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from molx_agent.errors import ChemistryError, DataError, ValidationError
from molx_agent.interfaces._engine import engine_or_default, engine_with_stock, resolve_target
from molx_agent.interfaces.pipeline.limits import LIMITS, RetroLimits
from molx_agent.interfaces.pipeline.models import RouteStatus, now_iso
from molx_agent.interfaces.pipeline.orchestrator import Orchestrator
from molx_agent.interfaces.pipeline.route_ops import canonical_nomap
from molx_agent.interfaces.pipeline.session_store import SessionStore
from molx_agent.io_utils import atomic_write_json, timestamped_dir
from molx_agent.retro.route import RetroGraph

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

logger = logging.getLogger(__name__)


def _resolve_target(target: str) -> tuple[str, str]:
    """``(canonical SMILES, name)`` through the one target resolver (a known name first, then a SMILES)."""
    smiles, name = resolve_target(target)
    can = canonical_nomap(smiles)
    if can is None:  # pragma: no cover - the resolver only returns parsable SMILES
        raise ChemistryError("invalid_smiles", f"Failed to parse SMILES: {target!r}", value=target)
    return can, name


def _orchestrator(
    store: SessionStore, meta: dict[str, Any], route_id: str, limits: RetroLimits,
    engine: RetroEngine | None = None,
) -> Orchestrator:
    return Orchestrator(
        store.load_route(route_id),
        limits=limits,
        stock=meta.get("stock"),
        with_proposals=bool(meta.get("with_proposals", True)),
        engine=engine,
    )


def plan_session(
    target_smiles: str,
    output_dir: str | Path | None = None,
    *,
    name: str = "",
    n_routes: int = 1,
    stock: str | None = None,
    language: str = "en",
    with_proposals: bool = True,
    limits: RetroLimits = LIMITS,
    engine: RetroEngine | None = None,
) -> dict[str, Any]:
    """Create (or extend) a session directory with ``n_routes`` new routes for the target (a SMILES or a known
    name).  ``engine``: the RetroEngine whose stock checks ``stock`` (default: the process-wide engine)."""
    if n_routes < 1:
        raise ValidationError("invalid_args", "n_routes must be >= 1", value=n_routes)
    if language not in ("en", "zh"):
        raise ValidationError("invalid_args", "language must be 'en' or 'zh'", value=language)
    target, resolved_name = _resolve_target(target_smiles)
    name = name or resolved_name
    if stock:  # a bad stock spec fails now (before any file is written), not in a run
        engine_with_stock(engine_or_default(engine), stock)
    if output_dir is None:
        from molx_agent.config import get_settings

        output_dir = timestamped_dir(Path(get_settings().output_dir) / "retro", name or "route")
    store = SessionStore(output_dir)
    with store.locked(create=True):
        if store.exists():
            meta = store.load_meta()
            if canonical_nomap(meta["target_smiles"]) != target:
                raise ValidationError(
                    "session_target_mismatch",
                    f"{store.dir} already holds a session for {meta['target_smiles']}",
                    value=target_smiles,
                    hint="use another --output-dir for a different target",
                )
        else:
            meta = store.create(target, name=name, stock=stock, language=language)
            meta["with_proposals"] = with_proposals
            store.save_meta(meta)
        created = []
        for _ in range(n_routes):
            route_id = store.next_route_id(meta)
            rt = Orchestrator.plan(route_id, target, name=name, limits=limits, stock=meta.get("stock"), engine=engine)
            store.add_route(meta, rt.route)
            created.append(
                {
                    "route_id": route_id,
                    "tasks": [
                        {"id": t.id, "type": t.type.value, "status": t.status.value}
                        for t in rt.route.tasks.values()
                    ],
                }
            )
    return {
        "status": "planned",
        "session_dir": str(store.dir),
        "target_smiles": target,
        "target_name": name,
        "stock": meta.get("stock") or "default (common reagents + ZINC in-stock)",
        "routes": created,
        "all_routes": meta["routes"],
        "next": f"molx-agent retro run --session-dir {store.dir} --route {created[0]['route_id']}",
    }


def run_route(
    session_dir: str | Path, route_id: str | None = None, *, auto: bool = False, limits: RetroLimits = LIMITS,
    engine: RetroEngine | None = None,
) -> dict[str, Any]:
    """Run the route until the next decision point (or, with ``auto``, to the end) on ``engine``."""
    store = SessionStore(session_dir)
    with store.locked():
        meta = store.load_meta()
        route_id = store.resolve_route(meta, route_id)
        rt = _orchestrator(store, meta, route_id, limits, engine)
        out = rt.run(auto=auto)
        store.save_route(rt.route)
    return {"session_dir": str(store.dir), **out}


def decide_route(
    session_dir: str | Path,
    route_id: str | None,
    decision: dict[str, Any] | str,
    *,
    limits: RetroLimits = LIMITS,
    engine: RetroEngine | None = None,
) -> dict[str, Any]:
    """Apply a DecisionInstruction to the paused route and run on to the next decision point."""
    if isinstance(decision, str):
        try:
            decision = json.loads(decision)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                "invalid_instruction", f"--decision is not valid JSON ({exc.msg})", value=decision[:200]
            ) from None
    if not isinstance(decision, dict):
        raise ValidationError("invalid_instruction", "the decision must be a JSON object", value=decision)
    store = SessionStore(session_dir)
    with store.locked():
        meta = store.load_meta()
        route_id = store.resolve_route(meta, route_id)
        rt = _orchestrator(store, meta, route_id, limits, engine)
        out = rt.decide(decision)
        store.save_route(rt.route)
    return {"session_dir": str(store.dir), **out}


def drive_route(
    session_dir: str | Path, route_id: str | None, decider: Any, *, limits: RetroLimits = LIMITS,
    engine: RetroEngine | None = None,
) -> dict[str, Any]:
    """Run the route to the end with ``decider`` (DecisionContext -> DecisionInstruction, e.g. an LLM);
    rejected answers fall back to ``use_default`` (see :meth:`Orchestrator.run_with`)."""
    store = SessionStore(session_dir)
    with store.locked():
        meta = store.load_meta()
        route_id = store.resolve_route(meta, route_id)
        rt = _orchestrator(store, meta, route_id, limits, engine)
        out = rt.run_with(decider)
        store.save_route(rt.route)
    return {"session_dir": str(store.dir), **out}


def explore_route(
    session_dir: str | Path,
    route_id: str | None,
    tool: str,
    params: dict[str, Any] | str | None,
    *,
    limits: RetroLimits = LIMITS,
    engine: RetroEngine | None = None,
) -> dict[str, Any]:
    """Call one read-only exploration tool at the pending decision (spends one unit of budget)."""
    if isinstance(params, str):
        try:
            params = json.loads(params) if params.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValidationError(
                "invalid_exploration_params", f"--params is not valid JSON ({exc.msg})", value=params[:200]
            ) from None
    store = SessionStore(session_dir)
    with store.locked():
        meta = store.load_meta()
        route_id = store.resolve_route(meta, route_id)
        rt = _orchestrator(store, meta, route_id, limits, engine)
        out = rt.explore(tool, params or {})
        store.save_route(rt.route)
    return {"session_dir": str(store.dir), "route_id": route_id, **out}


def _route_status(store: SessionStore, meta: dict[str, Any], route_id: str, detailed: bool) -> dict[str, Any]:
    rt = _orchestrator(store, meta, route_id, LIMITS)
    route = rt.route
    info: dict[str, Any] = {
        "route_id": route_id,
        "status": route.status.value,
        "strategy": route.strategy,
        "n_tasks": len(route.tasks),
        "task_counts": route.task_counts(),
        "n_steps": rt.graph.n_steps,
        "complete": rt.graph.is_complete(),
        "pending_decision": (
            {
                "decision_type": route.pending_decision.decision_type.value,
                "task_id": route.pending_decision.task_id,
                "exploration_budget": route.pending_decision.exploration_budget,
            }
            if route.pending_decision
            else None
        ),
        "n_decisions": len(route.decision_history),
        "finalized": route.audit.get("finalized"),
        "last_error": route.last_error,
        "notes": route.notes,
    }
    if detailed:
        info["tasks"] = [
            {
                "id": t.id,
                "type": t.type.value,
                "status": t.status.value,
                "smiles": t.smiles,
                "depth": t.depth,
                "parent_id": t.parent_id,
                "error": t.error,
            }
            for t in sorted(route.tasks.values(), key=lambda t: int(t.id))
        ]
        info["decision_history"] = route.decision_history
        info["tree"] = rt.graph.to_text()
    return info


def _safe_route_status(
    store: SessionStore, meta: dict[str, Any], route_id: str, detailed: bool
) -> dict[str, Any]:
    """A route's status; an unreadable route file is reported, not fatal (the others still show)."""
    try:
        return _route_status(store, meta, route_id, detailed)
    except DataError as exc:
        return {"route_id": route_id, "status": "unreadable", "error": exc.to_dict()}


def session_status(session_dir: str | Path, route_id: str | None = None) -> dict[str, Any]:
    """The session and each route's status (with ``route_id``: its tasks, history and tree too)."""
    store = SessionStore(session_dir)
    meta = store.load_meta()
    routes = [store.resolve_route(meta, route_id)] if route_id else list(meta.get("routes", []))
    return {
        "session_dir": str(store.dir),
        "target_smiles": meta["target_smiles"],
        "target_name": meta.get("target_name", ""),
        "stock": meta.get("stock"),
        "created_at": meta.get("created_at"),
        "routes": [_safe_route_status(store, meta, r, detailed=route_id is not None) for r in routes],
    }


def _route_comparison(store: SessionStore, meta: dict[str, Any], route_id: str) -> dict[str, Any]:
    from molx_agent.retro.report import starting_materials

    route = store.load_route(route_id)
    graph = RetroGraph.from_dict(route.graph)
    sms = starting_materials(graph, meta.get("language", "en"))
    scores, n_valid = [], 0
    for rxn in graph.reaction_nodes:
        fv = rxn.forward_validation or {}
        fa = fv.get("feasibility_assessment") or {}
        score = fv.get("feasibility_score", fa.get("feasibility_score") if isinstance(fa, dict) else None)
        if isinstance(score, (int, float)):
            scores.append(float(score))
        n_valid += bool(fv.get("is_valid"))
    return {
        "route_id": route_id,
        "status": route.status.value,
        "complete": graph.is_complete(),
        "strategy": route.strategy,
        "n_steps": graph.n_steps,
        "longest_linear_sequence": graph.longest_linear_sequence(),
        "steps": [
            {"step_id": r.step_id, "reaction_smiles": r.reaction_smiles, "reaction_type": r.reaction_type}
            for r in graph.forward_order()
        ],
        "starting_materials": [
            {k: s.get(k) for k in ("smiles", "status", "available", "source", "label")} for s in sms
        ],
        "n_starting_materials": len(sms),
        "n_in_stock": sum(1 for s in sms if s["status"] == "in_stock"),
        "n_unresolved": sum(1 for s in sms if s["status"] == "unresolved"),
        "availability": f"{sum(1 for s in sms if s['status'] == 'in_stock')}/{len(sms)} in stock",
        "feasibility": {
            "n_steps_valid": n_valid,
            "mean_feasibility_score": round(sum(scores) / len(scores), 3) if scores else None,
            "min_feasibility_score": round(min(scores), 3) if scores else None,
        },
        "n_decisions": len(route.decision_history),
        "n_failed_attempts": len(route.audit.get("failed_attempts", [])),
        "n_tasks": len(route.tasks),
    }


def compare_routes(session_dir: str | Path, route_ids: list[str] | None = None) -> dict[str, Any]:
    """Routes side by side: steps, starting materials, availability, feasibility; best first."""
    store = SessionStore(session_dir)
    meta = store.load_meta()
    ids = [store.resolve_route(meta, r) for r in route_ids] if route_ids else list(meta.get("routes", []))
    rows = [_route_comparison(store, meta, r) for r in ids]

    def rank_key(row: dict[str, Any]) -> tuple[Any, ...]:
        frac = row["n_in_stock"] / row["n_starting_materials"] if row["n_starting_materials"] else 0.0
        feas = row["feasibility"]["mean_feasibility_score"] or 0.0
        return (not row["complete"], row["n_steps"] == 0, -frac, row["n_steps"], -feas)

    ranked = sorted(rows, key=rank_key)
    return {
        "session_dir": str(store.dir),
        "target_smiles": meta["target_smiles"],
        "routes": rows,
        "ranking": [r["route_id"] for r in ranked],
        "ranking_rule": "complete first, then steps > 0, larger share of starting materials in stock, fewer "
        "steps, higher mean feasibility",
    }


def _summary_text(graph: RetroGraph, route_id: str, status: str, language: str) -> str:
    leaves = graph.leaves()
    in_stock = sum(1 for n in leaves if n.availability.get("in_stock"))
    if language == "zh":
        return (
            f"路线 {route_id}（状态：{status}）共 {graph.n_steps} 步，最长线性序列 "
            f"{graph.longest_linear_sequence()} 步；{len(leaves)} 个起始原料中 {in_stock} 个在库存中。"
        )
    return (
        f"Route {route_id} (status: {status}) has {graph.n_steps} step(s), longest linear sequence "
        f"{graph.longest_linear_sequence()}; {in_stock} of {len(leaves)} starting materials are in stock."
    )


def finalize_route(
    session_dir: str | Path, route_id: str | None = None, output_dir: str | Path | None = None
) -> dict[str, Any]:
    """Build the RetroGraph of the route and write the report (HTML, Markdown, JSON) plus the graph JSON."""
    from molx_agent.retro.report import render_route_report

    store = SessionStore(session_dir)
    with store.locked():
        meta = store.load_meta()
        route_id = store.resolve_route(meta, route_id)
        route = store.load_route(route_id)
        graph = RetroGraph.from_dict(route.graph)
        graph.metadata.update(
            {
                "route_id": route_id,
                "source": "molx-agent retro pipeline",
                "strategy": route.strategy,
                "status": route.status.value,
            }
        )
        out_dir = Path(output_dir) if output_dir else store.report_dir(route_id)
        language = meta.get("language", "en")
        summary = _summary_text(graph, route_id, route.status.value, language)
        extra = {
            "language": language,
            "summary": summary,
            "audit_state": route.audit,
            "route_id": route_id,
            "status": route.status.value,
            "strategy": route.strategy or "",
            "decisions": len(route.decision_history),
        }
        if meta.get("stock"):
            extra["stock"] = meta["stock"]
        paths = dict(render_route_report(graph, out_dir, name=meta.get("target_name", ""), extra=extra))
        paths["retro_graph"] = str(atomic_write_json(out_dir / "retro_graph.json", graph.to_dict()))
        try:
            from molx_agent.retro.export import to_aizynth_tree

            paths["aizynth_tree"] = str(
                atomic_write_json(out_dir / "aizynth_tree.json", to_aizynth_tree(graph))
            )
        except ImportError:  # pragma: no cover - export module not installed
            pass
        route.audit["finalized"] = {"at": now_iso(), "report_dir": str(out_dir)}
        store.save_route(route)
    pending = [n.smiles for n in graph.leaves() if n.role != "terminal"]
    return {
        "status": "finalized",
        "session_dir": str(store.dir),
        "route_id": route_id,
        "route_status": route.status.value,
        "complete": graph.is_complete(),
        "n_steps": graph.n_steps,
        "pending_molecules": pending,
        "warning": (
            f"the route is incomplete: {len(pending)} molecule(s) still pending" if pending else None
        ),
        "summary": summary,
        "tree": graph.to_text(),
        "report_paths": paths,
    }


__all__ = [
    "plan_session",
    "run_route",
    "decide_route",
    "drive_route",
    "explore_route",
    "session_status",
    "compare_routes",
    "finalize_route",
    "RouteStatus",
]

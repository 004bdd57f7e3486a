"""``disconnection`` worker: multi-step route search (Retro*) for the target(s) of a task.

Targets come from ``inputs["smiles"]``; without SMILES, from the ``top_compounds`` of a ``sar``
dependency (best first, at most ``options["max_targets"]``, default 3).  Options: ``time_limit``
(seconds per target, default 60), ``max_depth`` (7), ``n_routes`` (5), ``max_expansions`` (2000),
``stock`` (a :func:`~molx_agent.retro.stock.load_stock` spec).

Result (see docs/architecture.md): ``target_smiles``, ``target_name``, ``solved``, ``route_graph`` (best
route, or best partial route, as ``RetroGraph.to_dict()``), ``routes`` (AiZynthFinder-style trees),
``n_expansions``, ``time_s``, ``stock``, ``reasons``, ``summary`` (in ``state["language"]``) and, for
several targets, ``targets`` (one such record per target; a target that fails has an ``error``).
"""

from __future__ import annotations

import logging
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import RetroError, ValidationError

logger = logging.getLogger(__name__)

DEFAULT_MAX_TARGETS = 3


def _name_for(smiles: str, names: list[str]) -> str:
    """The user's name for ``smiles`` when one of ``names`` resolves to it."""
    try:
        from molx_agent.chem.names import resolve_name
        from molx_agent.retro.stock import canonical_smiles
    except ImportError:  # pragma: no cover
        return ""
    can = canonical_smiles(smiles)
    for name in names:
        resolved = resolve_name(name)
        if resolved and canonical_smiles(resolved) == can:
            return name
    return ""


def _targets(task: Task, state: AgentState, deps: list[dict[str, Any]]) -> list[tuple[str, str]]:
    inputs = task.get("inputs") or {}
    options = inputs.get("options") or {}
    names = [str(n) for n in inputs.get("names") or []]
    smiles = [str(s) for s in inputs.get("smiles") or [] if str(s).strip()]
    if smiles:
        return [(s, _name_for(s, names)) for s in smiles]
    max_targets = int(options.get("max_targets", DEFAULT_MAX_TARGETS))
    for dep in deps:
        top = dep.get("top_compounds") or []
        if top:
            return [(str(c["smiles"]), str(c.get("id") or "")) for c in top[:max_targets] if c.get("smiles")]
    return []


def _search_one(smiles: str, name: str, options: dict[str, Any], language: str) -> dict[str, Any]:
    from molx_agent.retro.export import to_aizynth_tree
    from molx_agent.retro.search import search_routes
    from molx_agent.retro.search_routes import route_summary_text

    res = search_routes(
        smiles,
        stock=options.get("stock"),
        time_limit=float(options.get("time_limit", 60)),
        max_depth=int(options.get("max_depth", 7)),
        n_routes=int(options.get("n_routes", 5)),
        max_expansions=int(options.get("max_expansions", 2000)),
        name=name,
    )
    best = res.best_route
    return {
        "target_smiles": res.target,
        "target_name": name,
        "solved": res.solved,
        "route_graph": best.to_dict() if best is not None else None,
        "routes": [to_aizynth_tree(g) for g in res.routes],
        "partial_route": to_aizynth_tree(res.partial_route) if res.partial_route else None,
        "n_steps": best.n_steps if best is not None else 0,
        "n_expansions": res.n_expansions,
        "time_s": round(res.time_s, 3),
        "stock": res.stock,
        "reasons": res.reasons,
        "stopped_by": res.stopped_by,
        "summary": route_summary_text(res, name=name, language=language),
    }


class DisconnectionAgent(BaseAgent):
    """Finds routes to purchasable materials with the Retro* search engine."""

    name = "disconnection"
    description = "Multi-step retrosynthesis: best-first route search ending in purchasable materials"

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        language = state.get("language", "en") or "en"
        options = dict((task.get("inputs") or {}).get("options") or {})
        targets = _targets(task, state, self.dependency_results(task, state))
        if not targets:
            raise ValidationError(
                "no_target",
                "no target molecule for route search" if language != "zh" else "没有可用于路线搜索的目标分子",
                hint="give the target as a SMILES or a known name, e.g. 'Plan a synthesis of CC(=O)Nc1ccc(O)cc1'",
            )
        records: list[dict[str, Any]] = []
        for smiles, name in targets:
            try:
                records.append(_search_one(smiles, name, options, language))
            except RetroError as exc:  # one bad target never hides the others
                if len(targets) == 1:
                    raise
                logger.info("route search failed for %s: %s", smiles, exc)
                records.append({"target_smiles": smiles, "target_name": name, "solved": False,
                                "error": exc.to_dict(), "summary": str(exc)})
        first = next((r for r in records if "error" not in r), records[0])
        result = dict(first)
        if len(records) > 1:
            result["targets"] = records
            n_solved = sum(bool(r.get("solved")) for r in records)
            lines = [r["summary"] for r in records]
            head = (f"{n_solved}/{len(records)} 个目标找到了完整路线。" if language == "zh"
                    else f"Routes found for {n_solved} of {len(records)} targets.")
            result["summary"] = " ".join([head, *lines])
        return result


__all__ = ["DisconnectionAgent"]

"""The one JSON payload of a route search, shared by ``molx-agent route --json`` / ``routes.json`` and the MCP server.

:func:`search_payload` turns a :class:`~molx_agent.retro.search_types.SearchResult` into the document every surface
returns: ``target``, ``target_smiles``, ``target_name``, ``solved``, ``routes`` (AiZynthFinder-style reaction trees,
best first, :func:`molx_agent.retro.export.to_aizynth_tree`), ``partial_route`` (a tree, when unsolved),
``n_expansions``, ``time_s``, ``stock``, ``reasons``, ``stopped_by``, ``route_summaries`` (per route: ``rank``,
``n_steps``, ``total_cost``, ``longest_linear_sequence``, ``confidence``, ``issues`` and ``starting_materials`` with
their ``source`` and purchasability ``tier``), ``search_stats`` (what the search spent: ``n_model_calls`` and
``model_time_s`` in the single-step model, ``n_validations`` and ``validation_time_s`` judging steps, ``n_nodes``,
``first_solution_s``, ``single_step_model``: ``{name, policy}``, the model the search expanded with, ``rescoring``:
what the final re-ranking with the full model did, ...) and ``summary`` (prose, English or Chinese).
:meth:`SearchResult.to_dict` stays the engine's internal dump (``RetroGraph.to_dict()`` per route).
"""

from __future__ import annotations

from typing import Any

from molx_agent.retro.route import RetroGraph
from molx_agent.retro.search_types import SearchResult


def route_summary(graph: RetroGraph) -> dict[str, Any]:
    """The short record of one route in ``route_summaries``."""
    judged = graph.metadata.get("route") or {}
    return {
        "rank": graph.metadata.get("rank"),
        "n_steps": graph.n_steps,
        "total_cost": graph.metadata.get("total_cost"),
        "longest_linear_sequence": graph.longest_linear_sequence(),
        "confidence": judged.get("confidence"),
        "issues": list(judged.get("issues") or []),
        "starting_materials": [
            {"smiles": n.smiles, "source": n.availability.get("source"), "tier": n.availability.get("tier")}
            for n in graph.leaves()
        ],
    }


SEARCH_STAT_KEYS = ("n_model_calls", "model_time_s", "n_validations", "validation_time_s", "n_nodes",
                    "n_replicated", "first_solution_s", "n_predictions_cut_short", "single_step_model",
                    "target_model", "rescoring", "n_clean_alternatives")


def search_payload(result: SearchResult, *, target: str | None = None, name: str = "",
                   language: str = "en") -> dict[str, Any]:
    """The search's JSON document (see the module docstring).

    ``target``: the text the user gave (a name or a SMILES; default the searched SMILES); ``name``: the target's
    name when known; ``language``: ``"en"`` or ``"zh"`` for ``summary``.
    """
    from molx_agent.retro.export import to_aizynth_tree
    from molx_agent.retro.search_routes import route_summary_text

    return {
        "target": target if target is not None else result.target,
        "target_smiles": result.target,
        "target_name": name,
        "solved": result.solved,
        "routes": [to_aizynth_tree(g) for g in result.routes],
        "partial_route": to_aizynth_tree(result.partial_route) if result.partial_route else None,
        "n_expansions": result.n_expansions,
        "time_s": round(result.time_s, 3),
        "stock": result.stock,
        "reasons": list(result.reasons),
        "stopped_by": result.stopped_by,
        "route_summaries": [route_summary(g) for g in result.routes],
        # what the search spent: single-step model calls and their time, step judgements, first-solution time
        "search_stats": {k: result.stats.get(k) for k in SEARCH_STAT_KEYS if k in (result.stats or {})},
        "summary": route_summary_text(result, name=name, language=language),
    }


__all__ = ["search_payload", "route_summary", "SEARCH_STAT_KEYS"]

"""A one-step route graph with verified leaves, for the route judgement's step checks (selectivity, mechanism)."""

from __future__ import annotations

from molx_agent.retro.route import RetroGraph


def one_step_graph(precursors: list[str], product: str, reaction_type: str, mapped_reaction: str = "") -> RetroGraph:
    """``precursors >> product`` as a solved one-step route: model score 0.5, forward validation passed, every
    precursor a verified building block."""
    graph = RetroGraph.new(product)
    rxn = graph.add_reaction(graph.target_id, precursors, reaction_type=reaction_type, score=0.5,
                             forward_validation={"ok": True, "feasibility_score": 0.9},
                             mapped_reaction=mapped_reaction)
    for rid in rxn.reactant_nodes:
        node = graph.molecule_nodes[rid]
        node.role = "leaf"
        node.availability = {"available": True, "source": "building-blocks", "tier": "verified"}
    return graph

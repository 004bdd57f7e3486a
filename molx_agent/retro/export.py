"""AiZynthFinder-style reaction-tree JSON export and import.

A route is a nested dict alternating molecule and reaction nodes::

    {"type": "mol", "smiles": "CC(=O)Nc1ccc(O)cc1", "in_stock": false, "children": [
        {"type": "reaction", "smiles": "CC(=O)Nc1ccc(O)cc1>>CC(=O)OC(C)=O.Nc1ccc(O)cc1",
         "metadata": {"template_id": ..., "reaction_name": ..., "score": ..., ...},
         "children": [{"type": "mol", "smiles": "CC(=O)OC(C)=O", "in_stock": true, ...}, ...]}]}

As in AiZynthFinder, a reaction node's ``smiles`` is written in the retrosynthetic direction
(``product>>reactants``); ``metadata.forward_smiles`` holds ``reactants>>product``.  Molecule nodes
carry ``hide``/``is_chemical`` (AiZynthFinder's keys) and ``metadata`` with the stock ``source``, the
node ``role`` and the ``availability`` record.  :func:`from_aizynth_tree` reads these trees back, and
also trees written by AiZynthFinder itself (``policy_probability``, ``template_hash``,
``classification`` metadata).
"""

from __future__ import annotations

from typing import Any

from molx_agent.errors import ValidationError
from molx_agent.retro.route import LLMDecision, RetroGraph, TemplateEvidence


def _mol_dict(graph: RetroGraph, node_id: str) -> dict[str, Any]:
    node = graph.molecule_nodes[node_id]
    out: dict[str, Any] = {
        "type": "mol",
        "hide": False,
        "smiles": node.smiles,
        "is_chemical": True,
        "in_stock": node.in_stock,
        "metadata": {
            "node_id": node.node_id,
            "role": node.role,
            "source": node.availability.get("source"),
            "availability": dict(node.availability),
        },
    }
    if node.name:
        out["metadata"]["name"] = node.name
    rxn = graph.reaction_for(node_id)
    out["children"] = [_reaction_dict(graph, rxn)] if rxn is not None else []
    return out


def _reaction_dict(graph: RetroGraph, rxn: Any) -> dict[str, Any]:
    product = graph.molecule_nodes[rxn.product_node].smiles
    reactants = [graph.molecule_nodes[r].smiles for r in rxn.reactant_nodes]
    ev = rxn.template_evidence
    metadata: dict[str, Any] = {
        "template_id": ev.template_id,
        "reaction_name": ev.template_name or rxn.reaction_type,
        "category": ev.category,
        "score": rxn.score,
        "step_id": rxn.step_id,
        "reaction_type": rxn.reaction_type,
        "forward_smiles": rxn.reaction_smiles,
        "mapped_reaction_smiles": rxn.mapped_reaction,
        "template_evidence": ev.to_dict(),
        "llm_decision": rxn.llm_decision.to_dict(),
        "forward_validation": dict(rxn.forward_validation),
    }
    return {
        "type": "reaction",
        "hide": False,
        "smiles": f"{product}>>{'.'.join(reactants)}",
        "is_reaction": True,
        "metadata": metadata,
        "children": [_mol_dict(graph, r) for r in rxn.reactant_nodes],
    }


def to_aizynth_tree(graph: RetroGraph) -> dict[str, Any]:
    """The route as an AiZynthFinder-style reaction tree (plain JSON types)."""
    tree = _mol_dict(graph, graph.target_id)
    route_meta = {k: v for k, v in graph.metadata.items() if isinstance(v, (str, int, float, bool, type(None)))}
    trust = graph.metadata.get("route") if isinstance(graph.metadata.get("route"), dict) else {}
    # the route's judgement (retro.judge.judge_route): routes[i].metadata.route.confidence / .verdict / .issues
    trust_meta = {k: trust[k] for k in ("confidence", "verdict", "issues") if k in trust}
    tree["metadata"]["route"] = {**route_meta, **trust_meta, "target_name": graph.target_name}
    return tree


def _check_mol(node: Any, path: str) -> None:
    if not isinstance(node, dict) or node.get("type") != "mol" or not isinstance(node.get("smiles"), str):
        raise ValidationError("invalid_reaction_tree", f"expected a molecule node with 'smiles' at {path}",
                              value=str(node)[:200], hint="a reaction tree alternates {type: mol} and {type: reaction} nodes")


def _read_mol(graph: RetroGraph, node_id: str, data: dict[str, Any], path: str) -> None:
    gnode = graph.molecule_nodes[node_id]
    meta = data.get("metadata") or {}
    availability = dict(meta.get("availability") or {})
    availability.setdefault("available", bool(data.get("in_stock", False)))
    if "source" in meta:
        availability.setdefault("source", meta.get("source"))
    gnode.availability = availability
    if meta.get("name"):
        gnode.name = str(meta["name"])
    children = data.get("children") or []
    if not children:
        if gnode.role != "target":
            gnode.role = meta.get("role") or ("terminal" if data.get("in_stock") else "pending")
        return
    if len(children) > 1:
        raise ValidationError("invalid_reaction_tree", f"molecule node at {path} has {len(children)} reactions; a route has one",
                              value=data.get("smiles"))
    rxn_data = children[0]
    if not isinstance(rxn_data, dict) or rxn_data.get("type") != "reaction":
        raise ValidationError("invalid_reaction_tree", f"expected a reaction node under {path}", value=str(rxn_data)[:200])
    kids = rxn_data.get("children") or []
    for i, kid in enumerate(kids):
        _check_mol(kid, f"{path}/{i}")
    if not kids:
        raise ValidationError("invalid_reaction_tree", f"reaction node under {path} has no reactants",
                              value=rxn_data.get("smiles"))
    rmeta = rxn_data.get("metadata") or {}
    ev_data = dict(rmeta.get("template_evidence") or {})
    ev = TemplateEvidence.from_dict(ev_data) if ev_data else TemplateEvidence(
        template_id=str(rmeta.get("template_id") or rmeta.get("template_hash") or rmeta.get("template_code") or ""),
        template_name=str(rmeta.get("reaction_name") or rmeta.get("classification") or ""),
        category=str(rmeta.get("category") or ""),
        confidence=float(rmeta.get("score") if rmeta.get("score") is not None else rmeta.get("policy_probability") or 0.0),
        source=str(rmeta.get("policy_name") or "imported"),
    )
    score = rmeta.get("score", rmeta.get("policy_probability"))
    reactants = [k["smiles"] for k in kids]
    forward = rmeta.get("forward_smiles") or f"{'.'.join(reactants)}>>{data['smiles']}"
    step = graph.add_reaction(
        node_id,
        reactants,
        forward,
        reaction_type=str(rmeta.get("reaction_type") or ev.template_name or ""),
        template_evidence=ev,
        llm_decision=LLMDecision.from_dict(rmeta.get("llm_decision")),
        forward_validation=dict(rmeta.get("forward_validation") or {}),
        score=float(score) if score is not None else None,
        mapped_reaction=str(rmeta.get("mapped_reaction_smiles") or rmeta.get("mapped_reaction") or ""),
    )
    if rmeta.get("step_id"):
        step.step_id = str(rmeta["step_id"])
    for i, (child_id, kid) in enumerate(zip(step.reactant_nodes, kids, strict=True)):
        _read_mol(graph, child_id, kid, f"{path}/{i}")


def from_aizynth_tree(tree: dict[str, Any]) -> RetroGraph:
    """Read an AiZynthFinder-style reaction tree (ours or AiZynthFinder's) into a :class:`RetroGraph`."""
    _check_mol(tree, "root")
    meta = tree.get("metadata") or {}
    route_meta = dict(meta.get("route") or {})
    name = str(route_meta.pop("target_name", "") or meta.get("name") or "")
    trust = {k: route_meta.pop(k) for k in ("confidence", "verdict", "issues") if k in route_meta}
    graph = RetroGraph.new(tree["smiles"], name=name)
    graph.metadata.update(route_meta)
    if trust:
        graph.metadata["route"] = {**trust, "score": route_meta.get("route_score")}
    _read_mol(graph, graph.target_id, tree, "root")
    return graph


def route_signature(tree: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Sorted (product, sorted reactants) SMILES pairs of a tree: two trees with equal signatures are the same route."""
    out: list[tuple[str, tuple[str, ...]]] = []

    def walk(node: dict[str, Any]) -> None:
        for rxn in node.get("children") or []:
            kids = rxn.get("children") or []
            out.append((node["smiles"], tuple(sorted(k["smiles"] for k in kids))))
            for kid in kids:
                walk(kid)

    walk(tree)
    return sorted(out)


__all__ = ["to_aizynth_tree", "from_aizynth_tree", "route_signature"]

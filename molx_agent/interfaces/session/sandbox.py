"""Sandbox attempts: evaluate a proposed step without touching the tree.

An attempt checks, in order: SMILES validity of every precursor, cycles (a precursor equal to the
molecule itself, the target or any ancestor), CS score and stock of every precursor, forward
validation (the engine's step judgement: 5 weighted checks, hard gates, plausibility) and atom balance.
``success`` is true only when the precursors are valid, acyclic and pass forward validation's hard gates.
"""

from __future__ import annotations

from typing import Any

from molx_agent.interfaces.session.context import quick_terminal
from molx_agent.interfaces.session.engine import SessionEngine, atom_balance, canonical_or_none
from molx_agent.interfaces.session.state import SessionState
from molx_agent.retro.route import FailedAttempt, RetroGraph


def ancestors(graph: RetroGraph, node_id: str) -> set[str]:
    """Node ids of every molecule that ``node_id`` is (transitively) a precursor of."""
    parents: dict[str, set[str]] = {}
    for rxn in graph.reaction_nodes:
        for r in rxn.reactant_nodes:
            parents.setdefault(r, set()).add(rxn.product_node)
    out: set[str] = set()
    stack = [node_id]
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in out:
                out.add(p)
                stack.append(p)
    return out


def _brief_fv(fv: dict[str, Any]) -> dict[str, Any]:
    keys = ("ok", "pass", "feasibility_score", "hard_fail_reasons")
    out = {k: fv.get(k) for k in keys}
    for k, v in fv.items():
        if k not in out:
            out[k] = v
    return out


def evaluate_attempt(state: SessionState, precursors: Any, *, engine: SessionEngine, source: str,
                     reaction_type: str = "", template_id: str = "", template_name: str = "",
                     category: str | None = None, confidence: float | None = None, mapped_reaction: str = "",
                     model_score: float | None = None, origin: dict[str, Any] | None = None) -> dict[str, Any]:
    """Evaluate ``precursors`` -> current molecule, append the attempt to the sandbox, return it.

    The step is judged by the engine as the route search judges it (:meth:`SessionEngine.judge_step`):
    ``category`` (``None`` when unknown), ``template_id`` (used when it names a named template),
    ``mapped_reaction`` and ``model_score`` (the single-step model's probability) when the step came from the model.
    ``forward_validation`` in the attempt carries the verdict (plausible / implausible / invalid).
    """
    current = state.current or {}
    product = current["smiles"]
    node_id = current["node_id"]
    errors: list[dict[str, Any]] = []
    canon: list[str] = []
    for smi in precursors:
        c = canonical_or_none(smi)
        if c is None:
            errors.append({"code": "invalid_smiles", "message": f"RDKit cannot parse precursor {smi!r}",
                           "value": smi})
        else:
            canon.append(c)
    if not precursors:
        errors.append({"code": "no_precursors", "message": "no precursor given"})
    cycle: list[str] = []
    if not errors:
        anc = ancestors(state.graph, node_id)
        forbidden = {state.graph.molecule_nodes[a].smiles: a for a in anc}
        forbidden[product] = node_id
        for c in canon:
            if c in forbidden:
                cycle.append(c)
                errors.append({"code": "cycle", "message": f"precursor {c} is "
                               + ("the molecule itself" if forbidden[c] == node_id else
                                  f"its ancestor {forbidden[c]}") + " (the route would loop)", "value": c})
    details: list[dict[str, Any]] = []
    fv: dict[str, Any] | None = None
    balance: dict[str, Any] | None = None
    if not errors:
        for c in canon:
            q = quick_terminal(c, state.config, engine)
            details.append({"smiles": c, **q["complexity"], "heavy_atoms": q["heavy_atoms"],
                            "in_stock": q["availability"]["available"],
                            "stock_source": q["availability"]["source"], "terminal": q["terminal"],
                            "terminal_reason": q["reason"]})
        fv = _brief_fv(engine.judge_step(canon, product, category=category, reaction_type=reaction_type or None,
                                         template_id=template_id or None, mapped_reaction=mapped_reaction or None,
                                         score=model_score))
        balance = atom_balance(canon, product, category or None)
    success = not errors and bool(fv and fv.get("pass"))
    sandbox = current["sandbox"]
    attempt = {
        "attempt_idx": len(sandbox["attempts"]),
        "success": success,
        "source": source,
        "precursors": canon if not errors or canon else list(precursors),
        "reaction_smiles": (".".join(canon) + ">>" + product) if canon else "",
        "precursor_details": details,
        "forward_validation": fv,
        "atom_balance": balance,
        "reaction_type": reaction_type or template_name,
        "template_id": template_id,
        "template_name": template_name,
        "category": category or "",
        "confidence": confidence,
        "errors": errors,
        **(origin or {}),
    }
    sandbox["attempts"].append(attempt)
    sandbox["n_attempts"] = len(sandbox["attempts"])
    if not success:
        hard = list((fv or {}).get("hard_fail_reasons") or [])
        reason = "; ".join(e["message"] for e in errors) or (
            "forward validation failed" + (f": {', '.join(hard)}" if hard else ""))
        state.audit.failed_attempts.append(FailedAttempt(molecule=product, precursors=attempt["precursors"],
                                                         reaction_type=attempt["reaction_type"], reason=reason,
                                                         hard_fail_reasons=hard))
    return attempt


def attempt_summary(attempt: dict[str, Any]) -> dict[str, Any]:
    fv = attempt.get("forward_validation") or {}
    return {"idx": attempt["attempt_idx"], "source": attempt["source"], "success": attempt["success"],
            "precursors": attempt["precursors"], "reaction_type": attempt.get("reaction_type", ""),
            "forward_pass": fv.get("pass"), "feasibility_score": fv.get("feasibility_score"),
            "errors": [e["code"] for e in attempt.get("errors", [])]}


__all__ = ["evaluate_attempt", "attempt_summary", "ancestors"]

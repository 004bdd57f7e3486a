"""Decision context of one molecule and the terminal (quick-pass) logic (seed 001 sections 1 and 5).

Terminal rules, any one suffices (never applied automatically to the target):

0. the molecule is in a stock (the answer names the stock);
1. heavy atoms <= 6;
2. CS score <= ``terminal_cs_threshold``;
3. no disconnectable bond and no FGI (neither the template library nor the single-step model
   proposes anything; only concluded when the model actually ran).
"""

from __future__ import annotations

import re
from typing import Any

from molx_agent.interfaces.session import engine
from molx_agent.interfaces.session.engine import SessionEngine

QUICK_PASS_HEAVY_ATOMS = 6
COMPACT_BOND_LIMIT = 12
COMPACT_CAPPING = 3


def quick_terminal(smiles: str, config: dict[str, Any], retro: SessionEngine) -> dict[str, Any]:
    """Cheap terminal checks (stock, size, CS) of a precursor: ``{terminal, reason, complexity, availability}``."""
    threshold = float(config["terminal_cs_threshold"])
    complexity = engine.cs_score(smiles, threshold)
    avail = retro.availability(smiles, str(config.get("stock") or "default"))
    n_heavy = engine.heavy_atoms(smiles)
    reason = ""
    if avail["available"]:
        reason = f"in stock: {avail['source']}"
    elif n_heavy <= QUICK_PASS_HEAVY_ATOMS:
        reason = f"quick pass: {n_heavy} heavy atoms <= {QUICK_PASS_HEAVY_ATOMS}"
    elif complexity["is_terminal"]:
        reason = f"quick pass: CS {complexity['cs_score']} <= {threshold}"
    return {"terminal": bool(reason), "reason": reason, "complexity": complexity, "availability": avail,
            "heavy_atoms": n_heavy}


_RETRO_SUFFIX = re.compile(r"\s*\(Retro(?:, [^)]*)?\)\s*$")


def reaction_type_name(template_name: str) -> str:
    """``"Amide Bond Formation (Retro, ester amide)"`` -> ``"Amide Bond Formation"`` (the reaction's name)."""
    return _RETRO_SUFFIX.sub("", template_name).strip()


def _bond_row(bond: dict[str, Any], alternatives: list[dict[str, Any]]) -> dict[str, Any]:
    row = {k: bond.get(k) for k in ("bond_idx", "atoms", "bond_type", "in_ring", "strategic_priority",
                                     "chemical_label", "heuristic_score")}
    names = [a["template"] for a in alternatives if a.get("template")] + list(bond.get("reaction_types") or [])
    row["reaction_types"] = list(dict.fromkeys(reaction_type_name(n) for n in names if reaction_type_name(n)))
    row["smart_capping"] = list(bond.get("smart_capping") or [])
    row["alternatives"] = alternatives
    row["n_alternatives"] = len(alternatives)
    return row


def build_decision_context(smiles: str, node_id: str, depth: int, *, is_target: bool,
                           config: dict[str, Any], retro: SessionEngine) -> dict[str, Any]:
    """Full decision context: analysis, every bond with its alternatives (templates + model), FGIs."""
    analysis = engine.analyze(smiles)
    threshold = float(config["terminal_cs_threshold"])
    cs = analysis.get("cs_score")
    top_k = int(config.get("top_k") or retro.retro.config.expansion_top_k)
    model = retro.model_alternatives(smiles, top_k)
    templates, template_fgi = engine.template_alternatives(smiles)
    abm = analysis.get("atom_bond_map") or {}
    bonds_src = {int(b["bond_idx"]): b for b in abm.get("bonds", []) if "bond_idx" in b}
    mol = engine.parse(smiles)
    bond_rows = []
    for idx in range(mol.GetNumBonds()):
        alts: list[dict[str, Any]] = []
        seen: set[tuple[str, ...]] = set()
        for alt in templates.get(idx, []) + model["by_bond"].get(idx, []):
            key = tuple(sorted(alt["precursors"]))
            if key in seen:
                continue
            seen.add(key)
            alts.append(alt)
        src = bonds_src.get(idx)
        if src is None:
            b = mol.GetBondWithIdx(idx)
            src = {"bond_idx": idx, "atoms": [b.GetBeginAtomIdx(), b.GetEndAtomIdx()],
                   "bond_type": str(b.GetBondType()), "in_ring": b.IsInRing(), "heuristic_score": 0.0}
        if alts or src.get("smart_capping") or (src.get("strategic_priority") or 0) > 0:
            bond_rows.append(_bond_row(src, alts))
    bond_rows.sort(key=lambda r: (-(r["n_alternatives"] > 0), -(r.get("heuristic_score") or 0.0), r["bond_idx"]))
    fgis = template_fgi + model["fgi"]
    fgi_rows = []
    seen_fgi: set[tuple[str, ...]] = set()
    for alt in fgis:
        key = tuple(sorted(alt["precursors"]))
        if key in seen_fgi:
            continue
        seen_fgi.add(key)
        fgi_rows.append({"fgi_idx": len(fgi_rows), **alt})
    n_heavy = mol.GetNumHeavyAtoms()
    return {
        "smiles": smiles,
        "node_id": node_id,
        "depth": depth,
        "is_target": is_target,
        "cs_score": cs,
        "classification": analysis.get("classification"),
        "is_terminal": bool(cs is not None and cs <= threshold),
        "heavy_atoms": n_heavy,
        "molecular_weight": analysis.get("molecular_weight"),
        "formula": analysis.get("formula"),
        "functional_groups": list(analysis.get("functional_groups") or []),
        "protecting_groups": list(analysis.get("protecting_groups") or []),
        "bonds": bond_rows,
        "fgi": fgi_rows,
        "model": {"n_predictions": model["n_predictions"], "problem": model["model_problem"]},
        "has_disconnections": any(r["n_alternatives"] for r in bond_rows) or bool(fgi_rows),
    }


def no_disconnection(ctx: dict[str, Any]) -> bool:
    """Terminal rule 3: nothing proposed although the model ran."""
    return not ctx["has_disconnections"] and not ctx["model"]["problem"]


def compact_bond(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: row.get(k) for k in ("bond_idx", "atoms", "bond_type", "in_ring", "heuristic_score",
                                   "n_alternatives", "reaction_types", "chemical_label")}
    out["smart_capping"] = [{k: c.get(k) for k in ("reaction_type", "confidence")}
                            for c in row.get("smart_capping", [])[:COMPACT_CAPPING]]
    return out


def compact_view(ctx: dict[str, Any], *, tier: str = "standard") -> dict[str, Any]:
    """The seed's compact ``current`` block (bond summary, FGI summary)."""
    return {
        "action": "awaiting_decision",
        "decision_tier": tier,
        "smiles": ctx["smiles"],
        "node_id": ctx["node_id"],
        "depth": ctx["depth"],
        "cs_score": ctx["cs_score"],
        "classification": ctx["classification"],
        "is_terminal": ctx["is_terminal"],
        "is_target": ctx["is_target"],
        "heavy_atoms": ctx["heavy_atoms"],
        "functional_groups": [{k: g.get(k) for k in ("name", "count", "atoms")} for g in ctx["functional_groups"]],
        "protecting_groups": ctx["protecting_groups"],
        "bond_summary": [compact_bond(r) for r in ctx["bonds"][:COMPACT_BOND_LIMIT]],
        "n_bonds_total": len(ctx["bonds"]),
        "fgi_summary": [{"fgi_idx": f["fgi_idx"], "template": f["template"], "template_id": f.get("template_id", ""),
                         "source": f["source"]} for f in ctx["fgi"]],
        "model": ctx["model"],
    }


__all__ = ["build_decision_context", "quick_terminal", "no_disconnection", "compact_view", "compact_bond",
           "QUICK_PASS_HEAVY_ATOMS"]

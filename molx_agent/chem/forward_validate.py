"""M5: forward validation of one step ``precursors -> product`` (seed 001, "正向验证").

Five weighted steps and five hard gates:

| step                 | weight | hard gate                                   |
|----------------------|--------|---------------------------------------------|
| atom balance         | 0.25   | ``severe_imbalance`` / ``skeleton_imbalance`` |
| template execution   | 0.25   | --                                          |
| MCS-style alignment  | 0.20   | ``scaffold_not_aligned``                    |
| bond-change topology | 0.15   | ``bond_topology_violation``                 |
| FG compatibility     | 0.15   | ``forbidden_fg``                            |

``feasibility_score`` is the weighted mean (0-1): > 0.7 high, 0.5-0.7 medium (acceptable), < 0.5 low.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from rdkit import Chem

from molx_agent.chem.alignment import ReactionAlignment, align_reaction
from molx_agent.chem.atom_balance import balance_from_counts
from molx_agent.chem.fg_detect import detect_functional_groups
from molx_agent.chem.fg_warnings import (
    FORBIDDEN_GROUPS,
    REACTION_INCOMPATIBILITIES,
    kept_group_spared,
    normalize_reaction_type,
    reagent_choice,
)
from molx_agent.chem.utils import MolLike, canonical, combine_mols, mol_formula_counter, parse_mol
from molx_agent.errors import RetroError, ValidationError

logger = logging.getLogger(__name__)

STEP_WEIGHTS: dict[str, float] = {
    "atom_balance": 0.25,
    "template_forward": 0.25,
    "mcs_alignment": 0.20,
    "bond_topology": 0.15,
    "fg_compatibility": 0.15,
}
HARD_GATES: tuple[str, ...] = (
    "severe_imbalance",
    "skeleton_imbalance",
    "scaffold_not_aligned",
    "bond_topology_violation",
    "forbidden_fg",
)
#: Below this fraction of product bonds found in the precursors the scaffold is not aligned.
MIN_CONSERVED_BOND_FRACTION = 0.6
#: Score of the template step when no template could be checked (neither credit nor blame).
UNCHECKED_TEMPLATE_SCORE = 0.5


def feasibility_band(score: float) -> str:
    """``high`` (> 0.7), ``medium`` (0.5-0.7) or ``low`` (< 0.5)."""
    if score > 0.7:
        return "high"
    if score >= 0.5:
        return "medium"
    return "low"


#: Score of the template step when no named template reproduces the step (the library is not exhaustive).
NO_TEMPLATE_FOUND_SCORE = 0.4
#: Gates that read bond changes off the heuristic (environment) atom alignment.  When a curated named
#: template regenerates exactly these precursors, the template's own mapping says which bonds change
#: (ring syntheses, rearrangements, halogenations the heuristic pairs wrongly), so these gates are
#: waived and reported in ``waived_gates``; atom balance and forbidden groups still apply.
TEMPLATE_VOUCHED_GATES: tuple[str, ...] = ("scaffold_not_aligned", "bond_topology_violation")


def _template_step(precursors: list[str], product: str, reaction_type: str | None, template_id: str | None,
                   search_templates: bool = False) -> dict[str, Any]:
    if not template_id and search_templates:
        try:
            from molx_agent.chem.template_scan import templates_regenerating

            ids = templates_regenerating(product, precursors)
        except (ImportError, RetroError) as exc:  # pragma: no cover - library ships with the package
            return {"score": UNCHECKED_TEMPLATE_SCORE, "checked": False, "detail": f"template search failed: {exc}"}
        if ids:
            return {"score": 1.0, "checked": True, "reproduced": True, "template_id": ids[0], "matched_templates": ids,
                    "detail": f"named template {ids[0]} regenerates exactly these precursors"}
        return {"score": NO_TEMPLATE_FOUND_SCORE, "checked": True, "reproduced": False, "matched_templates": [],
                "detail": "no named template regenerates these precursors (the library is not exhaustive)"}
    if not template_id:
        return {"score": UNCHECKED_TEMPLATE_SCORE, "checked": False, "detail": "no template given"}
    try:
        from molx_agent.chem.templates import run_named_template
    except ImportError:  # pragma: no cover - the template library ships with the package
        return {"score": UNCHECKED_TEMPLATE_SCORE, "checked": False, "detail": "template library unavailable"}
    try:
        outcomes = run_named_template(template_id, canonical(product))
    except RetroError as exc:
        return {"score": UNCHECKED_TEMPLATE_SCORE, "checked": False, "detail": exc.message}
    wanted = {canonical(p) for p in precursors}
    for o in outcomes:
        if set(o.precursors) == wanted:
            return {"score": 1.0, "checked": True, "reproduced": True, "template_id": template_id,
                    "detail": "the template regenerates exactly these precursors"}
    for o in outcomes:
        if set(o.precursors) & wanted:
            return {"score": 0.7, "checked": True, "reproduced": False, "template_id": template_id,
                    "detail": "the template regenerates part of these precursors (other leaving groups or reagents)"}
    detail = "the template does not apply to the product" if not outcomes else "the template gives other precursors"
    return {"score": 0.2, "checked": True, "reproduced": False, "template_id": template_id, "detail": detail}


def _fg_step(prec_mol: Chem.Mol, prod_mol: Chem.Mol, reaction_type: str | None) -> dict[str, Any]:
    key = normalize_reaction_type(reaction_type)
    if key is None:
        return {"score": 1.0, "checked": False, "forbidden_groups": [], "warnings": [], "reagent_choice": None,
                "detail": "no reaction type given: no reaction-specific FG check"}
    prec_groups = {g["name"]: g["count"] for g in detect_functional_groups(prec_mol)}
    prod_groups = {g["name"]: g["count"] for g in detect_functional_groups(prod_mol)}
    # A group is a spectator when it survives into the product: those are the ones at risk.
    spectators = {n for n, c in prec_groups.items() if prod_groups.get(n, 0) >= 1 and c >= 1}
    consumed = {n for n, c in prec_groups.items() if c > prod_groups.get(n, 0)}
    # not a kept group the step's partners or the usual reagent spare (an amino alcohol N-acylated, a ketone kept
    # through an aldehyde's reductive amination), nor one the reagent's choice spares (an ester reduced by LiBH4
    # beside an amide, named in ``reagent_choice``): fg_warnings.kept_group_spared
    bad = [n for n in REACTION_INCOMPATIBILITIES.get(key, ()) if n in spectators
           and not kept_group_spared(key, n, consumed, prec_groups)]
    forbidden = [n for n in FORBIDDEN_GROUPS.get(key, ()) if n in spectators]
    warnings = [f"{n.replace('_', ' ')} present in the precursors may not survive {key.replace('_', ' ')}" for n in bad]
    score = max(0.0, 1.0 - 0.25 * len(bad) - 0.5 * len(forbidden))
    note = reagent_choice(key, consumed, spectators, prec_groups)
    return {"score": score, "checked": True, "reaction_type": key, "forbidden_groups": forbidden, "warnings": warnings,
            "reagent_choice": note["reason"] if note is not None else None}


def _topology_step(al: ReactionAlignment) -> dict[str, Any]:
    n_violations = len(al.violations)
    score = 1.0 - 0.35 * n_violations - 0.05 * max(0, len(al.formed_bonds) - 2)
    return {
        "score": max(0.0, min(1.0, score)),
        "has_hard_fail": bool(al.violations),
        "n_formed": len(al.formed_bonds),
        "n_broken": len(al.broken_bonds) + len(al.leaving_bonds),
        "n_changed": len(al.changed_bonds),
        "violations": list(al.violations),
    }


def forward_validate_mols(
    prec_mol: Chem.Mol,
    prod_mol: Chem.Mol,
    *,
    precursors: list[str],
    product: str,
    reaction_type: str | None = None,
    template_id: str | None = None,
    reaction_category: str | None = None,
    prec_counts: Counter[str] | None = None,
    prod_counts: Counter[str] | None = None,
    search_templates: bool = False,
    mapped_mols: tuple[Chem.Mol, Chem.Mol] | None = None,
) -> dict[str, Any]:
    """:func:`validate_forward` on already-parsed molecules (used by ``validate_reaction``).

    ``mapped_mols``: atom-mapped (precursors, product) of the same step; the alignment then uses their map.
    """
    balance = balance_from_counts(
        prec_counts if prec_counts is not None else mol_formula_counter(prec_mol),
        prod_counts if prod_counts is not None else mol_formula_counter(prod_mol),
        reaction_category if reaction_category is not None else reaction_type,
    )
    al = align_reaction(*(mapped_mols or (prec_mol, prod_mol)))
    hard: list[str] = []
    if balance["severe_imbalance"]:
        hard.append("severe_imbalance")
    if balance["skeleton_imbalance"]:
        hard.append("skeleton_imbalance")
    aligned = al.conserved_bond_fraction >= MIN_CONSERVED_BOND_FRACTION
    if not aligned:
        hard.append("scaffold_not_aligned")
    topo = _topology_step(al)
    if topo["has_hard_fail"]:
        hard.append("bond_topology_violation")
    fg = _fg_step(prec_mol, prod_mol, reaction_type)
    if fg["forbidden_groups"]:
        hard.append("forbidden_fg")
    tpl = _template_step(precursors, product, reaction_type, template_id, search_templates)
    waived: list[str] = []
    if tpl.get("reproduced") and tpl.get("template_id"):
        waived = [g for g in hard if g in TEMPLATE_VOUCHED_GATES]
        hard = [g for g in hard if g not in TEMPLATE_VOUCHED_GATES]

    balance_dim = 0.0 if (balance["severe_imbalance"] or balance["skeleton_imbalance"]) else balance["balance_score"]
    steps = {
        "atom_balance": {"score": round(balance_dim, 4), "balance_score": balance["balance_score"],
                         "severe_imbalance": balance["severe_imbalance"],
                         "skeleton_imbalance": balance["skeleton_imbalance"], "note": balance["note"]},
        "template_forward": tpl,
        "mcs_alignment": {"score": round(al.conserved_bond_fraction if aligned else 0.0, 4), "aligned": aligned,
                          **al.to_dict()},
        "bond_topology": topo,
        "fg_compatibility": fg,
    }
    for name, weight in STEP_WEIGHTS.items():
        steps[name]["weight"] = weight
    score = sum(STEP_WEIGHTS[k] * float(steps[k]["score"]) for k in STEP_WEIGHTS)
    score = round(max(0.0, min(1.0, score)), 4)
    ok = not hard
    return {
        "ok": ok,
        "pass": ok,
        "feasibility_score": score,
        "feasibility": feasibility_band(score),
        "hard_fail_reasons": hard or None,
        "waived_gates": waived,
        "waived_because": (f"named template {tpl['template_id']} regenerates exactly these precursors"
                           if waived else None),
        "steps": steps,
        "atom_balance": balance,
    }


def validate_forward(
    precursors: list[str],
    product: str,
    reaction_type: str | None = None,
    template_id: str | None = None,
    *,
    search_templates: bool = False,
    mapped_reaction: str | None = None,
) -> dict[str, Any]:
    """Forward-validate ``precursors -> product``.

    Returns ``ok`` (= ``pass``: no hard gate fired), ``feasibility_score`` (0-1), ``feasibility``
    (high/medium/low), ``hard_fail_reasons`` (None or a list of gate names), ``waived_gates`` (alignment
    gates a named template that regenerates exactly these precursors overrides, see
    ``TEMPLATE_VOUCHED_GATES``) and ``waived_because``, ``steps`` (per step:
    ``score``, ``weight`` and details) and ``atom_balance`` (the :func:`check_atom_balance` dict).
    ``reaction_type`` (a category such as ``suzuki`` or a template category) selects the tier-1 losses
    and the FG compatibility table; ``template_id`` checks that the named template regenerates the
    precursors from the product; without one, ``search_templates=True`` looks for a named template that
    does (a few milliseconds per call, so off by default: the search engine validates thousands of steps).
    Without either, the template step is neutral (score 0.5, ``checked=False``).
    ``mapped_reaction``: the same step atom-mapped (``precursors>>product``, e.g. as the template that
    proposed it wrote it); when its map covers every product atom and it is the same reaction, the
    alignment and bond-topology steps read the bond changes off this map instead of the environment
    heuristic (``steps["mcs_alignment"]["source"] == "atom_maps"``); otherwise it is ignored.
    """
    if isinstance(precursors, str):
        precursors = [p for p in precursors.split(".") if p]
    if not precursors:
        raise ValidationError("empty_input", "no precursors given", value=precursors)
    if not isinstance(product, str) or not product.strip():
        raise ValidationError("empty_input", "no product given", value=product)
    prec_mols = [parse_mol(p) for p in precursors]
    prod_mol = parse_mol(product)
    return forward_validate_mols(
        combine_mols(prec_mols), prod_mol, precursors=list(precursors), product=product,
        reaction_type=reaction_type, template_id=template_id, search_templates=search_templates,
        mapped_mols=mapped_step_mols(mapped_reaction, prec_mols, prod_mol) if mapped_reaction else None,
    )


def mapped_step_mols(mapped_reaction: str, precursors: Sequence[MolLike],
                     product: MolLike) -> tuple[Chem.Mol, Chem.Mol] | None:
    """(mapped precursors, mapped product) when ``mapped_reaction`` is the atom-mapped form of the step
    ``precursors -> product`` (SMILES or already-parsed molecules; same molecules, every product atom mapped),
    else ``None``: a stale or partial map is never trusted."""
    if not isinstance(mapped_reaction, str) or mapped_reaction.count(">") != 2:
        return None
    left, _, right = mapped_reaction.split(">")
    try:
        prec = [parse_mol(p) for p in left.split(".") if p]
        prod = parse_mol(right)
        same = (canonical(prod) == canonical(product)
                and sorted(canonical(m) for m in prec) == sorted(canonical(p) for p in precursors))
    except RetroError:
        return None
    if not same or not prec or any(not a.GetAtomMapNum() for a in prod.GetAtoms()):
        return None
    return combine_mols(prec), prod


__all__ = [
    "HARD_GATES",
    "MIN_CONSERVED_BOND_FRACTION",
    "STEP_WEIGHTS",
    "TEMPLATE_VOUCHED_GATES",
    "feasibility_band",
    "forward_validate_mols",
    "mapped_step_mols",
    "validate_forward",
]

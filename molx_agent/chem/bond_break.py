"""M4: executing disconnections -- named templates, smart capping, FGI, multi-bond operations.

- :func:`break_bond` (skill ``break_bond``): break one bond by atom indices and get chemically sensible
  precursors (``fragments``), the ``reaction_smiles`` and a ``retro_analysis_guide``;
- :func:`execute_disconnection`: every named-template outcome and capping proposal for one bond
  (the session's ``explore`` view);
- :func:`execute_fgi`: functional-group interconversions (retro oxidation/reduction, deprotection);
- :func:`execute_operations`: several bonds broken at once with chosen caps;
- :func:`preview_disconnections`: the best few bonds with their best precursors;
- :func:`try_retro_template`: one named template on a molecule;
- :func:`resolve_template_ids`: ids from ids, prefixes or reaction names.

Atom indices refer to the SMILES exactly as given (RDKit parse order, 0-based).
"""

from __future__ import annotations

from typing import Any

from rdkit import Chem

from molx_agent.chem.atom_bond_map import BOND_FORMING_KINDS, build_atom_bond_map, chemical_label
from molx_agent.chem.smart_cap import (
    BondSpec,
    cap_bonds,
    parse_clean,
    precursor_notes,
    resolve_bond,
    suggest_capping,
)
from molx_agent.chem.template_scan import bond_template_index, list_fgi_options
from molx_agent.chem.templates import (
    get_template,
    incompatible_groups_present,
    resolve_template_ids,
    run_named_template,
)
from molx_agent.errors import ChemistryError, ValidationError

#: capping rule -> the named template giving its conditions, byproducts and incompatible groups
RULE_TEMPLATE: dict[str, str] = {
    "Suzuki coupling": "G31_suzuki_retro",
    "Negishi coupling": "G33_negishi_retro",
    "Stille coupling": "G35_stille_retro",
    "Amide bond formation": "G02_amide_retro",
    "Amide (acid chloride)": "G01_amide_acid_chloride_retro",
    "Ester hydrolysis": "G04_esterification_retro",
    "N-alkylation (SN2)": "G16_n_alkylation_retro",
    "Reductive amination": "G18_reductive_amination_retro",
    "Williamson ether": "G15_williamson_ether_retro",
    "Buchwald-Hartwig": "G21_buchwald_hartwig_retro",
    "SNAr/Ullmann": "G28_snar_ether_retro",
    "Heck": "G36_heck_retro",
    "Grignard": "G40_grignard_ketone_retro",
}
#: the forward reaction a capping rule stands for (the seed names "Ester hydrolysis" by its retro view)
RULE_FORWARD: dict[str, str] = {"Ester hydrolysis": "Esterification"}


def _parse(smiles: str) -> Chem.Mol:
    if not isinstance(smiles, str):
        raise ChemistryError("invalid_smiles", "expected a SMILES string", value=smiles)
    return parse_clean(smiles)


def _bond_info(mol: Chem.Mol, bond: Chem.Bond, atoms: tuple[int, int]) -> dict[str, Any]:
    return {
        "bond_idx": bond.GetIdx(),
        "atoms": [atoms[0], atoms[1]],
        "bond_type": str(bond.GetBondType()),
        "in_ring": bond.IsInRing(),
        "chemical_label": chemical_label(bond),
    }


def _atoms_of(bond: Chem.Bond, spec: BondSpec) -> tuple[int, int]:
    if isinstance(spec, int):
        return bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
    return int(spec[0]), int(spec[1])


def _template_alternatives(smiles: str, mol: Chem.Mol, bond: Chem.Bond) -> list[dict[str, Any]]:
    """Named-template outcomes that break ``bond`` (best template first)."""
    product = Chem.MolToSmiles(mol)
    # symmetry-equivalent bonds (e.g. the two methyls of a tert-alcohol) give one outcome: compare bonds
    # by the canonical ranks of their atoms, not by their indices
    ranks = list(Chem.CanonicalRankAtoms(mol, breakTies=False))

    def rank_key(i: int, j: int) -> tuple[int, int]:
        return (min(ranks[i], ranks[j]), max(ranks[i], ranks[j]))

    key = rank_key(bond.GetBeginAtomIdx(), bond.GetEndAtomIdx())
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    for site, match in bond_template_index(mol).get(bond.GetIdx(), []):
        tpl = site.template
        if tpl.kind not in BOND_FORMING_KINDS:
            continue
        for outcome in run_named_template(tpl.id, smiles):
            if key not in {rank_key(i, j) for i, j in outcome.broken_bonds}:
                continue
            sig = (tpl.id, *outcome.precursors)
            if sig in seen:
                continue
            seen.add(sig)
            out.append(
                {
                    "template": tpl.display_name,
                    "template_id": tpl.id,
                    "reaction_type": tpl.name,
                    "category": tpl.category,
                    "kind": tpl.kind,
                    "precursors": list(outcome.precursors),
                    "reaction_smiles": ".".join(outcome.precursors) + ">>" + product,
                    "confidence": tpl.confidence,
                    "reagents": tpl.reagents,
                    "byproducts": list(tpl.byproducts),
                    "incompatible_with": incompatible_groups_present(mol, tpl, match),
                    "bonds_broken": [list(b) for b in sorted(outcome.broken_bonds)],
                    "source": "template",
                }
            )
    for alt in out:
        alt["notes"] = precursor_notes(alt["precursors"])
    # best template first; within a template, orientations without unstable reagents first
    out.sort(key=lambda a: (-a["confidence"], len(a["notes"])))
    return out


def execute_disconnection(smiles: str, bond: BondSpec, *, template_id: str | None = None) -> dict[str, Any]:
    """All ways to disconnect one bond (atom pair or bond index): the session's ``explore`` view.

    Returns ``bond_idx``, ``atoms``, ``bond_type``, ``in_ring``, ``chemical_label``, ``heuristic_score``,
    ``strategic_priority``, ``alternatives`` (named templates that break this bond: ``template``,
    ``template_id``, ``precursors``, ``reaction_smiles``, ``confidence``, ``reagents``, ``byproducts``,
    ``incompatible_with``) and ``smart_capping`` (rule proposals with ``fragments``). With
    ``template_id`` only that template's outcomes are kept.
    """
    mol = _parse(smiles)
    b = resolve_bond(mol, bond, smiles=smiles)
    atoms = _atoms_of(b, bond)
    alternatives = _template_alternatives(smiles, mol, b)
    if template_id is not None:
        wanted = set(resolve_template_ids(template_id))
        alternatives = [a for a in alternatives if a["template_id"] in wanted]
    caps = suggest_capping(mol, atoms)
    abm = build_atom_bond_map(mol)["bonds"][b.GetIdx()]
    info = _bond_info(mol, b, atoms)
    info.update(
        {
            "heuristic_score": abm["heuristic_score"],
            "strategic_priority": abm["strategic_priority"],
            "n_alternatives": len(alternatives),
            "alternatives": alternatives,
            "smart_capping": caps,
        }
    )
    return info


def _rule_details(reaction_type: str) -> dict[str, Any]:
    tid = RULE_TEMPLATE.get(reaction_type)
    if not tid:
        return {"reagents": "", "byproducts": [], "template_id": None}
    tpl = get_template(tid)
    return {"reagents": tpl.reagents, "byproducts": list(tpl.byproducts), "template_id": tid, "template": tpl}


def break_bond(smiles: str, atom1_idx: int, atom2_idx: int) -> dict[str, Any]:
    """Break the bond between two atoms and return the precursors a chemist would use.

    The best of (a) named templates that make this bond and (b) the seed's smart-capping rules is
    chosen by confidence; e.g. aspirin's ester O-C(=O) bond gives acetic acid + salicylic acid. When
    nothing fits, both ends are capped with hydrogen and the guide says so (``source`` =
    ``hydrogen_capping``, confidence 0.1). Returns ``fragments``, ``reaction_smiles``,
    ``retro_analysis_guide`` plus ``bond``, ``reaction_type``, ``template_id``, ``confidence``, ``source``
    and ``alternatives``.

    Raises ``ChemistryError(code="invalid_smiles")`` for a bad SMILES, ``ValidationError`` with code
    ``atom_index_out_of_range`` / ``atoms_not_bonded`` for bad indices, and
    ``ChemistryError(code="aromatic_bond")`` for an aromatic ring bond no ring-forming template explains.
    """
    for name, idx in (("atom1_idx", atom1_idx), ("atom2_idx", atom2_idx)):
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise ValidationError("invalid_atom_index", f"{name} must be an integer", value=idx)
    mol = _parse(smiles)
    b = resolve_bond(mol, (atom1_idx, atom2_idx), smiles=smiles)
    product = Chem.MolToSmiles(mol)
    templates = _template_alternatives(smiles, mol, b)
    caps = [] if b.GetIsAromatic() else suggest_capping(mol, (atom1_idx, atom2_idx))
    candidates: list[dict[str, Any]] = []
    for alt in templates:
        candidates.append(
            {"source": "template", "reaction_type": alt["reaction_type"], "template_id": alt["template_id"],
             "precursors": alt["precursors"], "confidence": alt["confidence"], "reagents": alt["reagents"],
             "byproducts": alt["byproducts"], "incompatible_with": alt["incompatible_with"],
             "notes": alt["notes"]}
        )
    for cap in caps:
        details = _rule_details(cap["reaction_type"])
        tpl = details.get("template")
        candidates.append(
            {"source": "smart_capping", "reaction_type": cap["reaction_type"], "template_id": details["template_id"],
             "precursors": cap["fragments"], "confidence": cap["confidence"], "reagents": details["reagents"],
             "byproducts": details["byproducts"], "description": cap["description"],
             "incompatible_with": incompatible_groups_present(mol, tpl, (atom1_idx, atom2_idx)) if tpl else []}
        )
    for cand in candidates:
        cand.setdefault("notes", precursor_notes(cand["precursors"]))
    # highest confidence first; on a tie a named template (conditions, precedent) beats a capping rule,
    # and an orientation without unstable reagents (2-pyridyl boronic acids) beats one with them
    candidates.sort(key=lambda c: (-c["confidence"], c["source"] != "template", len(c["notes"])))
    warnings: list[str] = []
    if candidates:
        best = candidates[0]
    else:
        if b.GetIsAromatic():
            raise ChemistryError(
                "aromatic_bond",
                f"bond {atom1_idx}-{atom2_idx} is an aromatic ring bond and no ring-forming template makes it",
                value=[atom1_idx, atom2_idx],
                hint="aromatic rings are built by ring syntheses (see plan_ring_strategy) or bought",
            )
        fragments = cap_bonds(mol, [(atom1_idx, atom2_idx, "H", "H")])
        best = {"source": "hydrogen_capping", "reaction_type": "unassigned (hydrogen capping)",
                "template_id": None, "precursors": fragments, "confidence": 0.1, "reagents": "",
                "byproducts": [], "incompatible_with": []}
        warnings.append("no named reaction or capping rule forms this bond; both ends were capped with "
                        "hydrogen, so the fragments are not real reagents -- choose caps with custom_cap")
    # dedupe alternatives by precursor set, keep best-first order
    seen: set[tuple[str, ...]] = {tuple(sorted(best["precursors"]))}
    alternatives = []
    for c in candidates[1:]:
        sig = tuple(sorted(c["precursors"]))
        if sig in seen:
            continue
        seen.add(sig)
        alternatives.append(c)
    fragments = list(best["precursors"])
    reaction_smiles = ".".join(fragments) + ">>" + product
    bond_info = _bond_info(mol, b, (atom1_idx, atom2_idx))
    guide = _guide(bond_info, best, alternatives, warnings, product)
    return {
        "fragments": fragments,
        "reaction_smiles": reaction_smiles,
        "retro_analysis_guide": guide,
        "bond": bond_info,
        "reaction_type": best["reaction_type"],
        "template_id": best["template_id"],
        "confidence": best["confidence"],
        "source": best["source"],
        "alternatives": alternatives[:8],
        "warnings": warnings,
    }


def _guide(bond: dict[str, Any], best: dict[str, Any], alternatives: list[dict[str, Any]],
           warnings: list[str], product: str) -> dict[str, Any]:
    forward = RULE_FORWARD.get(best["reaction_type"], best["reaction_type"])
    steps = [
        "Validate the step: validate_reaction(reaction_smiles) must report is_valid=true (hard gate).",
        "Check the precursors: check_availability(fragments); decompose those that are not in stock.",
    ]
    for note in best.get("notes", []):
        steps.insert(1, note)
    if best.get("incompatible_with"):
        steps.insert(1, "Groups elsewhere in the molecule may not survive these conditions ("
                     + ", ".join(best["incompatible_with"]) + "): consider protection or another bond.")
    if alternatives:
        steps.append(f"{len(alternatives)} alternative precursor set(s) exist for this bond; see 'alternatives'.")
    summary = (f"Break the {bond['chemical_label']} bond (atoms {bond['atoms'][0]}-{bond['atoms'][1]}): "
               f"{' + '.join(best['precursors'])} -> {product} by {forward} "
               f"(confidence {best['confidence']:.2f}, {best['source'].replace('_', ' ')}).")
    return {
        "summary": summary,
        "bond_label": bond["chemical_label"],
        "forward_reaction": forward,
        "reaction_type": best["reaction_type"],
        "template_id": best["template_id"],
        "source": best["source"],
        "confidence": best["confidence"],
        "conditions": best.get("reagents", ""),
        "expected_byproducts": best.get("byproducts", []),
        "incompatible_groups_present": best.get("incompatible_with", []),
        "n_alternatives": len(alternatives),
        "next_steps": steps,
        "warnings": warnings,
    }


def execute_fgi(smiles: str, template_id: str | None = None, fgi_idx: int | None = None) -> dict[str, Any]:
    """Functional-group interconversion options (retro oxidation/reduction, deprotection) with precursors.

    ``template_id`` or ``fgi_idx`` (index into :func:`~molx_agent.chem.template_scan.list_fgi_options`)
    selects one option; otherwise all are run. Returns ``{smiles, options: [{fgi_idx, template,
    template_id, kind, precursors, reaction_smiles, confidence, reagents, byproducts}]}``.
    """
    mol = _parse(smiles)
    product = Chem.MolToSmiles(mol)
    options = list_fgi_options(mol)
    if fgi_idx is not None:
        if isinstance(fgi_idx, bool) or not isinstance(fgi_idx, int) or not 0 <= fgi_idx < len(options):
            raise ValidationError("fgi_index_out_of_range",
                                  f"fgi_idx must be 0..{len(options) - 1}", value=fgi_idx)
        options = [options[fgi_idx]]
    if template_id is not None:
        wanted = set(resolve_template_ids(template_id))
        options = [o for o in options if o["template_id"] in wanted]
    out = []
    for opt in options:
        tpl = get_template(opt["template_id"])
        for outcome in run_named_template(tpl.id, smiles):
            out.append(
                {
                    "fgi_idx": opt["fgi_idx"],
                    "template": tpl.display_name,
                    "template_id": tpl.id,
                    "kind": tpl.kind,
                    "precursors": list(outcome.precursors),
                    "reaction_smiles": ".".join(outcome.precursors) + ">>" + product,
                    "confidence": tpl.confidence,
                    "reagents": tpl.reagents,
                    "byproducts": list(tpl.byproducts),
                    "source": "fgi",
                }
            )
    return {"smiles": product, "n_options": len(out), "options": out}


def execute_operations(smiles: str, operations: list[dict[str, Any]]) -> dict[str, Any]:
    """Break several bonds at once (e.g. both amides of a convergent target).

    Each operation is ``{"atoms": [i, j]}`` or ``{"bond_idx": k}``, with optional ``cap_i`` / ``cap_j``
    (default: the best smart-capping rule for that bond, else hydrogen). Indices refer to the input
    molecule. Returns ``{fragments, reaction_smiles, operations}`` with the caps actually used.
    """
    mol = _parse(smiles)
    if not isinstance(operations, list) or not operations:
        raise ValidationError("invalid_operations", "operations must be a non-empty list", value=operations)
    specs = []
    resolved = []
    for k, op in enumerate(operations):
        if not isinstance(op, dict):
            raise ValidationError("invalid_operations", f"operation {k} is not an object", value=op)
        if "atoms" in op:
            spec: BondSpec = op["atoms"]
        elif "bond" in op:
            spec = op["bond"]
        elif "bond_idx" in op:
            spec = op["bond_idx"]
        else:
            raise ValidationError("invalid_operations", f"operation {k} needs 'atoms' or 'bond_idx'", value=op)
        b = resolve_bond(mol, spec, smiles=smiles)
        i, j = _atoms_of(b, spec)
        cap_i, cap_j = op.get("cap_i"), op.get("cap_j")
        rule = None
        if cap_i is None and cap_j is None:
            proposals = suggest_capping(mol, (i, j), max_proposals=1)
            if proposals:
                rule = proposals[0]["reaction_type"]
                cap_i, cap_j = proposals[0]["caps"][str(i)], proposals[0]["caps"][str(j)]
        specs.append((i, j, cap_i, cap_j))
        resolved.append({"atoms": [i, j], "bond_idx": b.GetIdx(), "cap_i": cap_i or "H", "cap_j": cap_j or "H",
                         "rule": rule, "chemical_label": chemical_label(b)})
    fragments = cap_bonds(mol, specs)
    return {
        "fragments": fragments,
        "reaction_smiles": ".".join(fragments) + ">>" + Chem.MolToSmiles(mol),
        "operations": resolved,
    }


def preview_disconnections(smiles: str, max_proposals: int = 5) -> list[dict[str, Any]]:
    """The ``max_proposals`` best bonds (by strategic priority), each with its best precursors.

    Each entry: ``bond_idx``, ``atoms``, ``chemical_label``, ``strategic_priority``, ``reaction_type``,
    ``template_id``, ``precursors``, ``reaction_smiles``, ``confidence``, ``source``.
    """
    if isinstance(max_proposals, bool) or not isinstance(max_proposals, int) or max_proposals < 1:
        raise ValidationError("invalid_max_proposals", "max_proposals must be a positive integer",
                              value=max_proposals)
    mol = _parse(smiles)
    abm = build_atom_bond_map(mol)
    out: list[dict[str, Any]] = []
    for entry in abm["strategic_bonds"]:
        if len(out) >= max_proposals:
            break
        i, j = entry["atoms"]
        try:
            res = break_bond(smiles, i, j)
        except ChemistryError:
            continue
        out.append(
            {
                "bond_idx": entry["bond_idx"],
                "atoms": [i, j],
                "chemical_label": entry["chemical_label"],
                "strategic_priority": entry["strategic_priority"],
                "reaction_type": res["reaction_type"],
                "template_id": res["template_id"],
                "precursors": res["fragments"],
                "reaction_smiles": res["reaction_smiles"],
                "confidence": res["confidence"],
                "source": res["source"],
            }
        )
    return out


def try_retro_template(smiles: str, template_id: str) -> dict[str, Any]:
    """Apply one named template (id, prefix or exact name) to a molecule.

    Returns ``{success, template_id, template, kind, n_outcomes, outcomes: [{precursors, reaction_smiles,
    bonds_broken}], message}``; ``success`` is false (with a message) when the template does not apply.
    """
    mol = _parse(smiles)
    ids = resolve_template_ids(template_id)
    tpl = get_template(ids[0])
    product = Chem.MolToSmiles(mol)
    outcomes = run_named_template(tpl.id, smiles)
    rows = [
        {"precursors": list(o.precursors), "reaction_smiles": ".".join(o.precursors) + ">>" + product,
         "bonds_broken": [list(b) for b in sorted(o.broken_bonds)]}
        for o in outcomes
    ]
    return {
        "success": bool(rows),
        "template_id": tpl.id,
        "template": tpl.display_name,
        "kind": tpl.kind,
        "n_outcomes": len(rows),
        "outcomes": rows,
        "message": "" if rows else f"{tpl.display_name} does not apply to {product}",
    }


__all__ = [
    "RULE_TEMPLATE",
    "break_bond",
    "execute_disconnection",
    "execute_fgi",
    "execute_operations",
    "preview_disconnections",
    "resolve_template_ids",
    "try_retro_template",
]

"""Reaction validation and repair: ``validate_reaction`` and ``repair_reaction`` (seed 000 skills).

``validate_reaction("a.b>reagents>p")`` parses a reaction SMILES (atom maps and a reagent block are
allowed), runs the two-tier atom balance and the five-step forward validation, names the byproducts
the precursors release and returns a verdict a chemist can read.  ``repair_reaction`` tries up to
``MAX_REPAIR_RETRIES`` fixes (add a missing small reagent, move a reagent that supplies atoms into the
reactants, declare the byproducts) and re-validates after each.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rdkit import Chem

from molx_agent.chem.byproducts import BYPRODUCTS, CATEGORY_LOSSES, normalize_category
from molx_agent.chem.forward_validate import forward_validate_mols
from molx_agent.chem.utils import canonical, combine_mols, heavy_count, mol_formula_counter, parse_mol
from molx_agent.errors import ChemistryError, ValidationError
from molx_agent.limits import check_smiles_text

#: Maximum repair attempts for one reaction (seed 000, ``MAX_REPAIR_RETRIES``).
MAX_REPAIR_RETRIES = 3
#: Default number of byproducts reported (seed 000, ``DEFAULT_MAX_BYPRODUCTS``).
DEFAULT_MAX_BYPRODUCTS = 3

_GATE_MESSAGES = {
    "severe_imbalance": "the product has more than 4 heavy atoms that no precursor provides",
    "skeleton_imbalance": "the product contains C/N/S atoms that no precursor provides",
    "scaffold_not_aligned": "the product's skeleton cannot be aligned with the precursors",
    "bond_topology_violation": "the bond changes needed are not chemically plausible",
    "forbidden_fg": "a precursor carries a group that destroys the reagent of this reaction",
}

#: Small reagents a repair may add to the precursor side, smallest first.
_REPAIR_REAGENTS: tuple[tuple[str, str], ...] = (
    ("water", "O"),
    ("ammonia", "N"),
    ("hydrogen peroxide", "OO"),
    ("methyl iodide", "CI"),
    ("formaldehyde", "C=O"),
    ("methanol", "CO"),
    ("carbon dioxide", "O=C=O"),
    ("hydrogen cyanide", "C#N"),
    ("hydrazine", "NN"),
    ("hydroxylamine", "NO"),
    ("sodium azide (HN3)", "N=[N+]=[N-]"),
    ("ethanol", "CCO"),
    ("acetic anhydride", "CC(=O)OC(C)=O"),
    ("Boc2O", "CC(C)(C)OC(=O)OC(=O)OC(C)(C)C"),
)


@dataclass(frozen=True)
class ParsedReaction:
    """A reaction SMILES split into parsed parts (atom maps kept on the molecules)."""

    text: str
    reactants: tuple[str, ...]
    reagents: tuple[str, ...]
    products: tuple[str, ...]
    reactant_mols: tuple[Chem.Mol, ...]
    reagent_mols: tuple[Chem.Mol, ...]
    product_mols: tuple[Chem.Mol, ...]


def _parse_parts(block: str, role: str, text: str) -> tuple[tuple[str, ...], tuple[Chem.Mol, ...]]:
    parts = tuple(p for p in block.split(".") if p.strip())
    mols = []
    for p in parts:
        try:
            mols.append(parse_mol(p))
        except ChemistryError as exc:
            raise ChemistryError(
                "invalid_smiles", f"{role} {p!r} of the reaction is not a valid SMILES", value=p,
                hint=f"in reaction {text!r}",
            ) from exc
    return parts, tuple(mols)


def parse_reaction(reaction_smiles: str) -> ParsedReaction:
    """Split and parse ``reactants>reagents>products`` (or ``reactants>>products``).

    Raises ``ValidationError`` with code ``empty_input``, ``invalid_reaction`` (not three ``>``-separated
    blocks), ``empty_reactants`` or ``empty_products``; ``ChemistryError(code="invalid_smiles")`` for a
    bad molecule, with the offending molecule as ``value``.
    """
    if reaction_smiles is not None and not isinstance(reaction_smiles, str):
        raise ValidationError("invalid_reaction", f"a reaction SMILES must be a string, not {type(reaction_smiles).__name__}",
                              value=reaction_smiles, hint="write it as 'reactants>>product'")
    if not reaction_smiles or not reaction_smiles.strip():
        raise ValidationError("empty_input", "empty reaction SMILES", value=reaction_smiles,
                              hint="write it as 'reactants>>product' or 'reactants>reagents>product'")
    text = reaction_smiles.strip()
    blocks = text.split(">")
    if len(blocks) != 3:
        raise ValidationError(
            "invalid_reaction", f"{reaction_smiles!r} is not a reaction SMILES", value=reaction_smiles,
            hint="write it as 'reactants>>product' or 'reactants>reagents>product'",
        )
    # whitespace inside is an error, never a silent cut (a CXSMILES extension or a trailing name included)
    text = check_smiles_text(text, what="reaction SMILES")
    reactants, r_mols = _parse_parts(blocks[0], "reactant", text)
    reagents, g_mols = _parse_parts(blocks[1], "reagent", text)
    products, p_mols = _parse_parts(blocks[2], "product", text)
    if not reactants:
        raise ValidationError("empty_reactants", "the reaction has no reactants", value=reaction_smiles)
    if not products:
        raise ValidationError("empty_products", "the reaction has no product", value=reaction_smiles)
    return ParsedReaction(text, reactants, reagents, products, r_mols, g_mols, p_mols)


@lru_cache(maxsize=1)
def _byproduct_table() -> tuple[tuple[int, str, str, tuple[tuple[str, int], ...]], ...]:
    rows = [(max(heavy_count(b.formula), 1), b.name, b.smiles, tuple(b.formula.items())) for b in BYPRODUCTS]
    return tuple(sorted(rows, key=lambda r: -sum(k for _, k in r[3])))


def infer_byproducts(deficit: dict[str, int], reaction_category: str | None = None,
                     max_byproducts: int = DEFAULT_MAX_BYPRODUCTS) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Decompose the precursor-side surplus into known byproducts.

    The losses known for ``reaction_category`` (tier 1) are tried first, then the whole library, largest
    molecules first.  Returns the byproducts (``[{name, smiles, count}]``, the ``max_byproducts`` that
    account for most heavy atoms) and what is left unexplained.
    """
    left = Counter(deficit)
    category = normalize_category(reaction_category)
    preferred = set(CATEGORY_LOSSES.get(category, ())) if category else set()
    table = _byproduct_table()
    ordered = [row for row in table if row[1] in preferred] + [row for row in table if row[1] not in preferred]
    found: list[tuple[int, dict[str, Any]]] = []
    for heavy, name, smiles, formula in ordered:
        n = 0
        while all(left.get(el, 0) >= k for el, k in formula):
            for el, k in formula:
                left[el] -= k
            n += 1
        if n:
            found.append((n * heavy, {"name": name, "smiles": smiles, "count": n}))
    found.sort(key=lambda item: -item[0])  # stable: equal sizes keep the order above
    return [b for _, b in found[:max_byproducts]], {k: v for k, v in left.items() if v > 0}


def _validate_parsed(rx: ParsedReaction, reaction_class: str | None, *, use_reagents: bool = False,
                     template_id: str | None = None, search_templates: bool = False) -> dict[str, Any]:
    reactant_mols = list(rx.reactant_mols) + (list(rx.reagent_mols) if use_reagents else [])
    reactants = list(rx.reactants) + (list(rx.reagents) if use_reagents else [])
    prec_mol = combine_mols(reactant_mols)
    sizes = [m.GetNumAtoms() for m in rx.product_mols]
    main = max(range(len(sizes)), key=lambda i: sizes[i])
    prod_mol = rx.product_mols[main]
    prec_counts = mol_formula_counter(prec_mol)
    prod_counts: Counter[str] = Counter()
    for m in rx.product_mols:
        prod_counts.update(mol_formula_counter(m))
    category = normalize_category(reaction_class)
    fwd = forward_validate_mols(
        prec_mol, prod_mol, precursors=reactants, product=rx.products[main],
        reaction_type=reaction_class, reaction_category=category,
        prec_counts=prec_counts, prod_counts=prod_counts, template_id=template_id,
        search_templates=search_templates,
    )
    return {"fwd": fwd, "main": main, "reactants": reactants, "reactant_mols": reactant_mols,
            "prec_mol": prec_mol, "prod_mol": prod_mol}


def validate_reaction(
    reaction_smiles: str,
    reaction_class: str | int | None = None,
    *,
    template_id: str | None = None,
    search_templates: bool = False,
) -> dict[str, Any]:
    """Validate one reaction SMILES.

    Returns ``is_valid`` (no hard gate fired), ``verdict`` (one readable sentence), ``status``
    (``valid``/``valid_with_warnings``/``invalid``), ``issues`` (``[{code, message, severity}]``),
    ``byproducts`` (``[{name, smiles, count}]``), ``atom_balance`` (the ``check_atom_balance`` fields),
    ``feasibility_assessment`` (``feasibility_score``, ``feasibility``, ``hard_fail_reasons``, ``steps``),
    ``reaction_smiles``, ``reactants``, ``reagents``, ``products``, ``main_product``, ``reaction_category``.
    ``reaction_class`` may be a category (``suzuki``, ``amide_coupling``, a template category) or a
    USPTO-50K class number; it selects the tier-1 losses and the FG compatibility table.  ``template_id``
    checks one named template; ``search_templates=True`` looks for a named template that regenerates the
    precursors (slower: a few ms per reaction).  Without either the template step is neutral (0.5).
    """
    rx = parse_reaction(reaction_smiles)
    rc = None if reaction_class is None else str(reaction_class)
    run = _validate_parsed(rx, rc, template_id=template_id, search_templates=search_templates)
    issues: list[dict[str, Any]] = []
    fwd = run["fwd"]
    if fwd["hard_fail_reasons"] and rx.reagents and (
        fwd["atom_balance"]["skeleton_imbalance"] or fwd["atom_balance"]["severe_imbalance"]
    ):
        alt = _validate_parsed(rx, rc, use_reagents=True, template_id=template_id, search_templates=search_templates)
        if not alt["fwd"]["hard_fail_reasons"]:
            run, fwd = alt, alt["fwd"]
            issues.append({
                "code": "reagent_atoms_incorporated", "severity": "warning",
                "message": "atoms of a reagent end up in the product: it should be drawn as a reactant",
            })
    balance = fwd["atom_balance"]
    reactant_smiles = [canonical(m) for m in rx.reactant_mols]
    product_smiles = [canonical(m) for m in rx.product_mols]
    main_smiles = product_smiles[run["main"]]
    if main_smiles in reactant_smiles:
        issues.append({"code": "no_change", "severity": "error",
                       "message": "the product is identical to a reactant: nothing happens"})
    for gate in fwd["hard_fail_reasons"] or []:
        msg = _GATE_MESSAGES[gate]
        if gate in ("severe_imbalance", "skeleton_imbalance"):
            msg += f" ({', '.join(f'{k}{v}' for k, v in balance['adjusted_excess'].items())})"
        if gate == "bond_topology_violation":
            msg += ": " + "; ".join(v["message"] for v in fwd["steps"]["bond_topology"]["violations"][:3])
        if gate == "forbidden_fg":
            msg += ": " + ", ".join(fwd["steps"]["fg_compatibility"]["forbidden_groups"])
        issues.append({"code": gate, "severity": "error", "message": msg})
    if balance["adjusted_deficit"] and not fwd["hard_fail_reasons"]:
        issues.append({"code": "unexplained_leaving_atoms", "severity": "warning",
                       "message": balance["note"]})
    if balance["adjusted_excess"] and not (balance["skeleton_imbalance"] or balance["severe_imbalance"]):
        issues.append({"code": "minor_product_excess", "severity": "warning", "message": balance["note"]})
    al = fwd["steps"]["mcs_alignment"]
    for k, n in enumerate(al["contributions"]):
        if k >= len(run["reactant_mols"]) or n:
            continue
        mol = run["reactant_mols"][k]
        if mol.GetNumHeavyAtoms() == 0 or canonical(mol) in product_smiles:
            continue  # H2, H+ or a spectator ion written on both sides
        issues.append({
            "code": "precursor_not_incorporated", "severity": "warning",
            "message": f"reactant {run['reactants'][k]!r} contributes no atom to the product (a reagent?)",
        })
    n_contributing = sum(1 for k, n in enumerate(al["contributions"]) if n and k < len(run["reactant_mols"]))
    losses = balance.get("explained_losses", [])
    if n_contributing >= 2 and losses and all(loss["name"] == "H2" for loss in losses):
        # two molecules joined with loss of H2 (C-H + X-H -> C-X): a dehydrogenative coupling
        issues.append({
            "code": "dehydrogenative_coupling", "severity": "warning",
            "message": "the reactants combine with loss of H2 only (a C-H/X-H cross-coupling): this needs an "
                       "oxidant or a catalyst and is rarely the intended reaction; check for a missing leaving group",
        })
    for w in fwd["steps"]["fg_compatibility"].get("warnings", []):
        issues.append({"code": "fg_incompatibility", "severity": "warning", "message": w})
    if fwd["feasibility"] == "low" and not fwd["hard_fail_reasons"]:
        issues.append({"code": "low_feasibility", "severity": "warning",
                       "message": f"feasibility score {fwd['feasibility_score']:.2f} is low (< 0.5)"})

    byproducts, leftover = infer_byproducts(
        {k: v for k, v in balance["deficit"].items()}, balance["reaction_category"]
    )
    leftover_heavy = {k: v for k, v in leftover.items() if k != "H"}
    is_valid = not any(i["severity"] == "error" for i in issues)
    status = "invalid" if not is_valid else ("valid_with_warnings" if issues else "valid")
    verdict = _verdict(is_valid, balance, byproducts, fwd, issues)
    return {
        "is_valid": is_valid,
        "verdict": verdict,
        "status": status,
        "issues": issues,
        "byproducts": byproducts,
        "unexplained_leaving_atoms": leftover_heavy,
        "atom_balance": balance,
        "feasibility_assessment": {
            "feasibility_score": fwd["feasibility_score"],
            "feasibility": fwd["feasibility"],
            "pass": fwd["pass"],
            "hard_fail_reasons": fwd["hard_fail_reasons"],
            "steps": fwd["steps"],
        },
        "reaction_smiles": rx.text,
        "reactants": reactant_smiles,
        "reagents": [canonical(m) for m in rx.reagent_mols],
        "products": product_smiles,
        "main_product": main_smiles,
        "reaction_category": balance["reaction_category"],
    }


def _verdict(is_valid: bool, balance: dict[str, Any], byproducts: list[dict[str, Any]],
             fwd: dict[str, Any], issues: list[dict[str, Any]]) -> str:
    band = f"feasibility {fwd['feasibility']} ({fwd['feasibility_score']:.2f})"
    if not is_valid:
        errors = [i["code"] for i in issues if i["severity"] == "error"]
        return f"invalid: {', '.join(errors)}; balance score {balance['balance_score']:.2f}, {band}"
    if balance["balanced"]:
        lost = ", ".join(f"{b['count']}x {b['name']}" if b["count"] > 1 else b["name"] for b in byproducts)
        how = f"atom-balanced with loss of {lost}" if lost else "atom-balanced"
    else:
        how = f"balance score {balance['balance_score']:.2f} ({balance['note']})"
    caution = "; caution: dehydrogenative coupling (needs an oxidant or catalyst)" if any(
        i["code"] == "dehydrogenative_coupling" for i in issues) else ""
    return f"valid: {how}; {band}{caution}"


def _issue_codes(issues: list[Any]) -> list[str]:
    codes = []
    for i in issues or []:
        if isinstance(i, dict):
            codes.append(str(i.get("code") or i.get("message") or ""))
        else:
            codes.append(str(i))
    return [c for c in codes if c]


def _reaction_text(reactants: list[str], reagents: list[str], products: list[str]) -> str:
    return f"{'.'.join(reactants)}>{'.'.join(reagents)}>{'.'.join(products)}"


def repair_reaction(reaction_smiles: str, issues: list[Any] | None = None) -> dict[str, Any]:
    """Try to repair a reaction that failed validation (at most ``MAX_REPAIR_RETRIES`` attempts).

    ``issues`` are issue codes/strings or ``{code, message}`` dicts (from ``validate_reaction``); when
    omitted the reaction is validated first.  Returns ``repaired_smiles`` (None when no attempt produced a
    valid reaction), ``repaired_precursors``, ``repair_actions`` (``[{attempt, action, detail, success}]``),
    ``changes_made`` (sentences), ``repair_strategy``, ``attempts``, ``is_valid``, ``original_issues``,
    ``original_reaction_smiles`` and ``validation`` (the final ``validate_reaction`` result).
    """
    rx = parse_reaction(reaction_smiles)
    first = validate_reaction(reaction_smiles)
    codes = _issue_codes(issues) or [i["code"] for i in first["issues"]]
    reactants = [canonical(m) for m in rx.reactant_mols]
    reagents = [canonical(m) for m in rx.reagent_mols]
    products = [canonical(m) for m in rx.product_mols]
    actions: list[dict[str, Any]] = []
    changes: list[str] = []
    current = first
    strategy = "none"

    def attempt(action: str, detail: str, new_reactants: list[str], new_reagents: list[str],
                new_products: list[str]) -> dict[str, Any] | None:
        text = _reaction_text(new_reactants, new_reagents, new_products)
        result = validate_reaction(text)
        ok = result["is_valid"]
        actions.append({"attempt": len(actions) + 1, "action": action, "detail": detail, "success": ok,
                        "reaction_smiles": text})
        return result if ok else None

    candidates: list[tuple[str, str, list[str], list[str], list[str], str]] = []
    balance = first["atom_balance"]
    if balance["skeleton_imbalance"] or balance["severe_imbalance"] or any(
        c in codes for c in ("skeleton_imbalance", "severe_imbalance", "atom_balance", "minor_product_excess")
    ):
        if reagents:
            candidates.append(("move_reagents", f"treat reagents {', '.join(reagents)} as reactants",
                               reactants + reagents, [], products, "reagents supply the missing atoms"))
        need = Counter(balance["adjusted_excess"])
        for name, smi in _REPAIR_REAGENTS:
            f = mol_formula_counter(smi)
            if all(f.get(el, 0) >= n for el, n in need.items()):
                candidates.append(("add_reagent", f"add {name} ({smi}) to the reactants",
                                   reactants + [smi], reagents, products, f"a missing reactant ({name})"))
    if first["is_valid"] and first["byproducts"]:
        declared = [b["smiles"] for b in first["byproducts"] for _ in range(b["count"])]
        candidates.append(("declare_byproducts", "write the byproducts on the product side: "
                           + ", ".join(b["name"] for b in first["byproducts"]),
                           reactants, reagents, products + declared, "declared byproducts"))
    if "precursor_not_incorporated" in codes or any(i["code"] == "precursor_not_incorporated" for i in first["issues"]):
        contributions = first["feasibility_assessment"]["steps"]["mcs_alignment"]["contributions"]
        keep = [r for r, n in zip(reactants, contributions, strict=False) if n > 0]
        drop = [r for r, n in zip(reactants, contributions, strict=False) if n == 0]
        if keep and drop:
            candidates.append(("move_to_reagents", f"move {', '.join(drop)} to the reagents",
                               keep, reagents + drop, products, "non-incorporated reactants are reagents"))

    repaired = None
    if first["is_valid"] and not candidates:
        actions.append({"attempt": 0, "action": "none_needed", "success": True,
                        "detail": "the reaction already passes validation", "reaction_smiles": first["reaction_smiles"]})
        repaired, strategy = first, "already valid"
    for action, detail, new_r, new_g, new_p, why in candidates:
        if len(actions) >= MAX_REPAIR_RETRIES:
            break
        result = attempt(action, detail, new_r, new_g, new_p)
        if result is not None:
            repaired, current, strategy = result, result, why
            changes.append(detail)
            break
    if repaired is None and not candidates and not first["is_valid"]:
        actions.append({"attempt": 0, "action": "none", "success": False,
                        "detail": "no automatic repair applies to " + (", ".join(codes) or "this reaction")
                        + "; choose another disconnection or check the product"})
    return {
        "repaired_smiles": repaired["reaction_smiles"] if repaired else None,
        "repaired_precursors": repaired["reactants"] if repaired else None,
        "repair_actions": actions,
        "changes_made": changes,
        "repair_strategy": strategy,
        "attempts": sum(1 for a in actions if a["attempt"] > 0),
        "max_retries": MAX_REPAIR_RETRIES,
        "is_valid": bool(repaired and repaired["is_valid"]),
        "original_issues": codes,
        "original_reaction_smiles": reaction_smiles,
        "validation": current,
    }


__all__ = [
    "DEFAULT_MAX_BYPRODUCTS",
    "MAX_REPAIR_RETRIES",
    "ParsedReaction",
    "infer_byproducts",
    "parse_reaction",
    "repair_reaction",
    "validate_reaction",
]

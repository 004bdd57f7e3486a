"""M5 (part): two-tier atom balance (seed 001, "原子守恒 — 两层小分子损失设计").

``deficit`` = atoms the precursors have in excess of the product (leaving groups, byproducts);
``excess`` = atoms the product has that the precursors lack.  Both are reduced by small-molecule
losses in two tiers: tier 1 = the losses known for the reaction category (19 categories), tier 2 =
H2O, HCl, HBr, HI, HF, H2 for every reaction (these never explain C/N/S).

Hard gates are one-directional: ``skeleton_imbalance`` when the product still has extra C/N/S,
``severe_imbalance`` when it still has more than 4 extra non-H atoms.  Extra atoms on the precursor
side (Ph3PO of a Wittig, Bu3SnX of a Stille) only lower the continuous
``balance_score = 1 - unexplained heavy atoms / heavy atoms of the larger side``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rdkit import Chem

from molx_agent.chem.byproducts import (
    BYPRODUCT_BY_NAME,
    CATEGORY_LOSSES,
    GENERIC_LOSSES,
    normalize_category,
)
from molx_agent.chem.utils import as_mol, heavy_count, mol_formula_counter
from molx_agent.errors import ValidationError

#: Product-side excess of more non-H atoms than this is a severe imbalance (hard gate).
SEVERE_EXCESS_ATOMS = 4
#: Elements whose appearance on the product side from nowhere is a skeleton imbalance.
SKELETON_ELEMENTS = frozenset({"C", "N", "S"})


def _side_counter(molecules: list[str] | str | Chem.Mol) -> Counter[str]:
    if isinstance(molecules, Chem.Mol):
        return mol_formula_counter(molecules)
    if molecules is None:
        raise ValidationError("empty_input", "no molecules given", value=molecules)
    if not isinstance(molecules, (str, list, tuple)):
        raise ValidationError("invalid_input", f"expected SMILES (a string or a list of strings), not "
                              f"{type(molecules).__name__}", value=molecules)
    items = [molecules] if isinstance(molecules, str) else list(molecules)
    if not items:
        raise ValidationError("empty_input", "no molecules given", value=molecules)
    total: Counter[str] = Counter()
    for smi in items:
        total.update(mol_formula_counter(as_mol(smi)))
    return total


def _subtract_losses(counts: Counter[str], names: tuple[str, ...], tier: int) -> list[dict[str, Any]]:
    """Remove whole loss molecules from ``counts`` (in place); return what was removed.

    Tier 1 tries the biggest molecules first; tier 2 keeps its order (hydrogen halides before water).
    """
    removed: list[dict[str, Any]] = []
    ordered = sorted(names, key=lambda n: -sum(BYPRODUCT_BY_NAME[n].formula.values())) if tier == 1 else names
    for name in ordered:
        formula = BYPRODUCT_BY_NAME[name].formula
        n = 0
        while all(counts.get(el, 0) >= k for el, k in formula.items()):
            for el, k in formula.items():
                counts[el] -= k
            n += 1
        if n:
            removed.append({"name": name, "count": n, "tier": tier, "smiles": BYPRODUCT_BY_NAME[name].smiles})
    return removed


def balance_from_counts(
    precursor_atoms: Counter[str], product_atoms: Counter[str], reaction_category: str | None = None
) -> dict[str, Any]:
    """The atom-balance verdict from element counters (see :func:`check_atom_balance`)."""
    category = normalize_category(reaction_category)
    deficit = Counter({k: v - product_atoms.get(k, 0) for k, v in precursor_atoms.items() if v > product_atoms.get(k, 0)})
    excess = Counter({k: v - precursor_atoms.get(k, 0) for k, v in product_atoms.items() if v > precursor_atoms.get(k, 0)})
    adj_def, adj_exc = Counter(deficit), Counter(excess)
    losses: list[dict[str, Any]] = []
    gains: list[dict[str, Any]] = []
    if category:
        losses += _subtract_losses(adj_def, CATEGORY_LOSSES[category], 1)
        gains += _subtract_losses(adj_exc, CATEGORY_LOSSES[category], 1)
    losses += _subtract_losses(adj_def, GENERIC_LOSSES, 2)
    gains += _subtract_losses(adj_exc, GENERIC_LOSSES, 2)
    # Hydrogen bookkeeping depends on reagents that are rarely drawn (reductants, bases): not judged.
    adjusted_deficit = {k: v for k, v in sorted(adj_def.items()) if v > 0 and k != "H"}
    adjusted_excess = {k: v for k, v in sorted(adj_exc.items()) if v > 0 and k != "H"}
    unexplained = sum(adjusted_deficit.values()) + sum(adjusted_excess.values())
    total_heavy = max(heavy_count(precursor_atoms), heavy_count(product_atoms), 1)
    score = max(0.0, min(1.0, 1.0 - unexplained / total_heavy))
    skeleton = any(el in SKELETON_ELEMENTS for el in adjusted_excess)
    severe = sum(adjusted_excess.values()) > SEVERE_EXCESS_ATOMS
    balanced = not adjusted_deficit and not adjusted_excess
    if balanced and not losses and not gains:
        note = "balanced"
    elif balanced:
        note = "balanced after accounting for small-molecule loss"
    elif severe or skeleton:
        extra = ", ".join(f"{k}{v}" for k, v in adjusted_excess.items())
        note = f"product has atoms no precursor provides: {extra}"
    elif adjusted_excess:
        extra = ", ".join(f"{k}{v}" for k, v in adjusted_excess.items())
        note = f"product has a few extra non-skeleton atoms ({extra}), probably from an undrawn reagent"
    else:
        left = ", ".join(f"{k}{v}" for k, v in adjusted_deficit.items())
        note = f"precursors carry unexplained leaving atoms ({left}): reagent residue or an undrawn byproduct"
    return {
        "balanced": balanced,
        "balance_score": round(score, 4),
        "precursor_atoms": dict(sorted(precursor_atoms.items())),
        "product_atoms": dict(sorted(product_atoms.items())),
        "excess": dict(sorted(excess.items())),
        "deficit": dict(sorted(deficit.items())),
        "adjusted_excess": adjusted_excess,
        "adjusted_deficit": adjusted_deficit,
        "severe_imbalance": severe,
        "skeleton_imbalance": skeleton,
        "note": note,
        "reaction_category": category,
        "explained_losses": losses,
        "explained_gains": gains,
        "unexplained_atoms": unexplained,
        "total_heavy_atoms": total_heavy,
    }


def check_atom_balance(
    precursors: list[str] | str, product: str | list[str], reaction_category: str | None = None
) -> dict[str, Any]:
    """Two-tier atom balance of ``precursors -> product``.

    Returns the seed's fields: ``balanced``, ``balance_score``, ``precursor_atoms``, ``product_atoms``,
    ``excess``, ``deficit``, ``adjusted_excess``, ``adjusted_deficit``, ``severe_imbalance``,
    ``skeleton_imbalance``, ``note``; plus ``reaction_category`` (normalised, or None),
    ``explained_losses``/``explained_gains`` (``[{name, count, tier, smiles}]``), ``unexplained_atoms``
    and ``total_heavy_atoms``.  Invalid SMILES raise ``ChemistryError(code="invalid_smiles")``; an empty
    side raises ``ValidationError(code="empty_input")``.
    """
    if isinstance(product, str) and not product.strip():
        raise ValidationError("empty_input", "no product given", value=product)
    return balance_from_counts(_side_counter(precursors), _side_counter(product), reaction_category)


__all__ = ["SEVERE_EXCESS_ATOMS", "SKELETON_ELEMENTS", "balance_from_counts", "check_atom_balance"]

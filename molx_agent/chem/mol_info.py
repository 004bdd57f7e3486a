"""M1: molecule analysis (``analyze_molecule``) and known-scaffold matching (seed 000/001)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rdkit import Chem
from rdkit.Chem import Descriptors, rdMolDescriptors

from molx_agent.chem.cs_score import compute_cs_score
from molx_agent.chem.fg_detect import (
    GroupPattern,
    compile_library,
    detect_functional_groups,
    detect_protecting_groups,
    detect_reactive_sites,
    scan_library,
)
from molx_agent.chem.properties import SA_EASY, SA_PURCHASABLE, sa_score  # the one SA score and thresholds
from molx_agent.chem.properties import sa_class as _sa_class
from molx_agent.chem.utils import MolLike, as_mol, load_data, parse_mol

#: Molecules lighter than this are terminal in recursion decisions (seed 000, ``MW_TERMINAL``).
MW_TERMINAL = 120.0


def classify_sa(score: float) -> str:
    """``purchasable`` (< 2.2), ``easily_synthesizable`` (< 3.5) or ``complex`` (:func:`chem.properties.sa_class`)."""
    return str(_sa_class(score))


def suggested_action(sa: float, molecular_weight: float) -> str:
    """Seed 000 recursion default: ``mark_terminal`` (MW < 120 or SA < 2.2), ``mark_optional`` (SA < 3.5),
    else ``decompose``."""
    if molecular_weight < MW_TERMINAL or sa < SA_PURCHASABLE:
        return "mark_terminal"
    if sa < SA_EASY:
        return "mark_optional"
    return "decompose"


@lru_cache(maxsize=1)
def _scaffold_library() -> tuple[GroupPattern, ...]:
    return compile_library(load_data("known_scaffolds")["scaffolds"])


def match_known_scaffolds(mol_or_smiles: MolLike) -> list[dict[str, Any]]:
    """Known medicinal-chemistry scaffolds in the molecule: ``[{name, count, atoms}]`` (largest first)."""
    found = scan_library(as_mol(mol_or_smiles), _scaffold_library())
    found.sort(key=lambda s: (-len(s["atoms"][0]), s["name"]))
    return found


def analyze_molecule(smiles: str, *, include_atom_bond_map: bool = True) -> dict[str, Any]:
    """Structure analysis of one molecule (the ``analyze_molecule`` skill's ``MoleculeInfo``).

    Returns ``smiles``, ``canonical_smiles``, ``formula``, ``molecular_weight``, ``exact_mass``,
    ``heavy_atoms``, ``rings``, ``aromatic_rings``, ``stereocenters``, ``sa_score``, ``sa_class``,
    ``suggested_action``, ``cs_score``, ``classification``, ``is_terminal``, ``terminal_reason``,
    ``cs_dimensions``, ``functional_groups`` (``[{name, count, atoms, ...}]``), ``protecting_groups``,
    ``reactive_sites``, ``known_scaffolds``, and ``atom_bond_map`` (``{bonds, strategic_bonds,
    retro_guidance}``, strategic bonds sorted by ``strategic_priority``) with ``retro_guidance``.
    Invalid input raises ``ChemistryError(code="invalid_smiles", value=smiles)``.
    """
    mol = parse_mol(smiles)
    fgs = detect_functional_groups(mol)
    pgs = detect_protecting_groups(mol, fgs)
    stereo = Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)
    cs = compute_cs_score(mol, functional_groups=fgs, protecting_groups=pgs, n_stereocenters=len(stereo))
    mw = round(Descriptors.MolWt(mol), 3)
    sa = sa_score(mol)
    out: dict[str, Any] = {
        "smiles": smiles,
        "canonical_smiles": Chem.MolToSmiles(mol),
        "formula": rdMolDescriptors.CalcMolFormula(mol),
        "molecular_weight": mw,
        "exact_mass": round(rdMolDescriptors.CalcExactMolWt(mol), 4),
        "heavy_atoms": mol.GetNumHeavyAtoms(),
        "rings": cs["features"]["rings"],
        "aromatic_rings": cs["features"]["aromatic_rings"],
        "stereocenters": [{"atom_idx": i, "label": lab} for i, lab in stereo],
        "sa_score": sa,
        "sa_class": classify_sa(sa),
        "suggested_action": suggested_action(sa, mw),
        "cs_score": cs["cs_score"],
        "classification": cs["classification"],
        "is_terminal": cs["is_terminal"],
        "terminal_reason": cs["terminal_reason"],
        "cs_dimensions": cs["dimensions"],
        "functional_groups": fgs,
        "protecting_groups": pgs,
        "reactive_sites": detect_reactive_sites(mol, fgs),
        "known_scaffolds": match_known_scaffolds(mol),
    }
    if include_atom_bond_map:
        from molx_agent.chem.atom_bond_map import build_atom_bond_map

        abm = build_atom_bond_map(mol)
        out["atom_bond_map"] = abm
        out["retro_guidance"] = abm.get("retro_guidance", "")
    return out


__all__ = [
    "MW_TERMINAL",
    "SA_EASY",
    "SA_PURCHASABLE",
    "analyze_molecule",
    "classify_sa",
    "match_known_scaffolds",
    "sa_score",
    "suggested_action",
]

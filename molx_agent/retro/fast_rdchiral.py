"""rdchiral's ``rdchiralRun`` without its stereo bookkeeping when there is no stereo to keep.

``rdchiralRun`` post-processes every RDKit ``RunReactants`` outcome in Python: it labels atoms, checks
tetrahedral and double-bond stereo against the template, stitches ring openings, restores bonds the
template did not touch, then copies or corrects the chirality of every atom and the direction of every
double bond before writing canonical SMILES.  When neither the template (no ``@``, ``/`` or ``\\`` in its
SMARTS) nor the product (no chiral tag, no bond direction) carries any stereo, every one of those stereo
steps leaves the outcome as it is:

- an atom-chirality check compares two unspecified centres (rdchiral's "achiral & achiral -> match");
- a double-bond check compares a template definition of ``(NONE, NONE)`` with the product's ``(NONE, NONE)``;
- copying a chirality tag copies "unspecified" onto an atom that RunReactants left unspecified (the achiral
  product copy is the only source of atoms besides the template), so nothing is inverted and no outcome
  is skipped for a broken centre;
- restoring double-bond directions finds none to restore.

:func:`run_template` therefore runs only the steps that can change the result (labels, stitching, missing
bonds, sanitisation, the mapped and the canonical SMILES) in that case and calls ``rdchiralRun`` itself in
every other.  Its outcomes and mapped SMILES are the same as rdchiral's (``tests/retro/test_fast_rdchiral.py``
compares both on USPTO-50K products with the library's templates).  ``atoms_changed``, the second item
of each mapped entry, is not computed on the fast path (an empty tuple): no caller of this module reads it.
"""

from __future__ import annotations

from typing import Any

import rdchiral.main as rdchiral_main
from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem
from rdkit.Chem import AllChem
from rdkit.Chem.rdchem import BondDir, ChiralType

__all__ = ["is_stereo_free_reactants", "is_stereo_free_template", "run_template"]

_NO_DIRS = (BondDir.NONE, BondDir.NONE)
_UNSPECIFIED = ChiralType.CHI_UNSPECIFIED


def is_stereo_free_template(rxn: rdchiralReaction) -> bool:
    """True when the template sets and checks no stereo: no chiral tag, no bond direction (cached on
    ``rxn``)."""
    cached = getattr(rxn, "_molx_stereo_free", None)
    if cached is None:
        smarts = rxn.reaction_smarts
        cached = (
            "@" not in smarts and "/" not in smarts and "\\" not in smarts
            and not rxn.rt_bond_dirs_by_mapnum and not rxn.pt_bond_dirs_by_mapnum
            and all(dirs == _NO_DIRS for dirs in rxn.required_rt_bond_defs.values())
            and all(a.GetChiralTag() == _UNSPECIFIED for a in rxn.template_r.GetAtoms())
            and all(a.GetChiralTag() == _UNSPECIFIED for a in rxn.template_p.GetAtoms())
        )
        rxn._molx_stereo_free = cached
    return cached


def is_stereo_free_reactants(reactants: rdchiralReactants) -> bool:
    """True when the molecule has no chiral tag and no double-bond direction (cached on ``reactants``)."""
    cached = getattr(reactants, "_molx_stereo_free", None)
    if cached is None:
        cached = (
            not reactants.bond_dirs_by_mapnum
            and all(dirs == _NO_DIRS for _, dirs, _ in reactants.atoms_across_double_bonds)
            and all(a.GetChiralTag() == _UNSPECIFIED for a in reactants.atoms_r.values())
        )
        reactants._molx_stereo_free = cached
    return cached


def run_template(
    rxn: rdchiralReaction, reactants: rdchiralReactants, *, combine_enantiomers: bool = True,
    return_mapped: bool = False,
) -> Any:
    """``rdchiralRun(rxn, reactants, combine_enantiomers=..., return_mapped=...)``, faster without stereo.

    The same outcomes as rdchiral, in the same form (a list of canonical SMILES; with ``return_mapped`` also
    the dict of mapped SMILES, whose ``atoms_changed`` is empty on the fast path).
    """
    if not (is_stereo_free_template(rxn) and is_stereo_free_reactants(reactants)):
        return rdchiral_main.rdchiralRun(rxn, reactants, combine_enantiomers=combine_enantiomers,
                                         return_mapped=return_mapped)
    result = _run_stereo_free(rxn, reactants)
    if result is None:
        return []  # as rdchiral: no RunReactants outcome gives a bare empty list, even with return_mapped
    final, mapped = result
    # combine_enantiomers only merges outcomes that differ in stereo; there is none here
    return (final, mapped) if return_mapped else final


def _run_stereo_free(rxn: rdchiralReaction, reactants: rdchiralReactants) -> tuple[list[str], dict] | None:
    """rdchiralRun's loop (rdchiral 1.1.0, ``main.py``) with the stereo steps that are no-ops here left out;
    ``None`` when RDKit's RunReactants gives no outcome."""
    rxn.reset()
    outcomes = rxn.rxn.RunReactants((reactants.reactants_achiral,))
    if not outcomes:
        return None
    final: set[str] = set()
    mapped_outcomes: dict[str, tuple[str, tuple]] = {}
    atoms_rt_map = rxn.atoms_rt_map
    template_r = rxn.template_r
    bonds_by_mapnum = reactants.bonds_by_mapnum
    mapnum_of_idx = _mapnums(reactants)
    atoms_r = reactants.atoms_r
    for outcome in outcomes:
        # map numbers: product atoms by their index in the product, new atoms from 900
        unmapped = 900
        atoms_rt: dict[int, Chem.Atom] = {}
        mapnums: list[int] = []  # every atom's (all are non-zero once labelled)
        for m in outcome:
            for a in m.GetAtoms():
                if a.HasProp("react_atom_idx"):
                    a.SetAtomMapNum(mapnum_of_idx[a.GetIntProp("react_atom_idx")])
                if not a.GetAtomMapNum():
                    a.SetAtomMapNum(unmapped)
                    unmapped += 1
                mapnums.append(a.GetAtomMapNum())
                if a.HasProp("old_mapno"):
                    atoms_rt[mapnums[-1]] = atoms_rt_map[a.GetIntProp("old_mapno")]
        unknown = atoms_rt.keys() - atoms_r.keys()
        if unknown:  # rdchiral's chirality check reads every matched atom of the product: it raises KeyError
            raise KeyError(f"template atoms matched to no product atom: {sorted(unknown)}")
        # every double-bond definition of template and product is (NONE, NONE): no outcome is skipped
        if len(mapnums) != len(set(mapnums)):
            outcome = _stitch(outcome)
        else:
            merged = outcome[0]
            for j in range(1, len(outcome)):
                merged = AllChem.CombineMols(merged, outcome[j])
            outcome = merged
        atoms_p = {a.GetAtomMapNum(): a for a in outcome.GetAtoms() if a.GetAtomMapNum()}
        missing_bonds = []
        for i, j, b in bonds_by_mapnum:
            if i in atoms_p and j in atoms_p \
                    and not outcome.GetBondBetweenAtoms(atoms_p[i].GetIdx(), atoms_p[j].GetIdx()) \
                    and (i not in atoms_rt or j not in atoms_rt
                         or not template_r.GetBondBetweenAtoms(atoms_rt[i].GetIdx(), atoms_rt[j].GetIdx())):
                missing_bonds.append((i, j, b))
        if missing_bonds:
            outcome = Chem.RWMol(outcome)
            rwmol_map_to_id = {a.GetAtomMapNum(): a.GetIdx() for a in outcome.GetAtoms() if a.GetAtomMapNum()}
            for i, j, b in missing_bonds:
                outcome.AddBond(rwmol_map_to_id[i], rwmol_map_to_id[j])
                new_b = outcome.GetBondBetweenAtoms(rwmol_map_to_id[i], rwmol_map_to_id[j])
                new_b.SetBondType(b.GetBondType())
                new_b.SetBondDir(b.GetBondDir())
                new_b.SetIsAromatic(b.GetIsAromatic())
            outcome = outcome.GetMol()
        try:
            Chem.SanitizeMol(outcome)
            outcome.UpdatePropertyCache()
        except ValueError:
            continue
        mapped_outcome = Chem.MolToSmiles(outcome, True)
        for a in outcome.GetAtoms():
            a.SetAtomMapNum(0)
        smiles = Chem.MolToSmiles(outcome, True)
        # a full SMILES -> mol -> SMILES cycle, components sorted (looked up on rdchiral's module, so that
        # retro.fast_rdkit.memoised_outcome_canonicalisation applies here as well)
        smiles_new = rdchiral_main.canonicalize_outcome_smiles(smiles)
        if smiles_new is None:
            continue
        final.add(smiles_new)
        mapped_outcomes[smiles_new] = (mapped_outcome, ())
    return list(final), mapped_outcomes


def _mapnums(reactants: rdchiralReactants) -> list[int]:
    """Map number of each atom of the product by index (rdchiral's ``idx_to_mapnum``, as a list; cached)."""
    cached = getattr(reactants, "_molx_mapnums", None)
    if cached is None:
        cached = [a.GetAtomMapNum() for a in reactants.reactants.GetAtoms()]
        reactants._molx_mapnums = cached
    return cached


def _stitch(outcome: tuple[Chem.Mol, ...]) -> Chem.Mol:
    """rdchiral's merge of a ring opening that RDKit split into several products (duplicate map numbers)."""
    merged_mol = Chem.RWMol(outcome[0])
    merged_map_to_id = {a.GetAtomMapNum(): a.GetIdx() for a in outcome[0].GetAtoms() if a.GetAtomMapNum()}
    for j in range(1, len(outcome)):
        new_mol = outcome[j]
        for a in new_mol.GetAtoms():
            if a.GetAtomMapNum() not in merged_map_to_id:
                merged_map_to_id[a.GetAtomMapNum()] = merged_mol.AddAtom(a)
        for b in new_mol.GetBonds():
            bi = b.GetBeginAtom().GetAtomMapNum()
            bj = b.GetEndAtom().GetAtomMapNum()
            if not merged_mol.GetBondBetweenAtoms(merged_map_to_id[bi], merged_map_to_id[bj]):
                merged_mol.AddBond(merged_map_to_id[bi], merged_map_to_id[bj], b.GetBondType())
                bond = merged_mol.GetBondBetweenAtoms(merged_map_to_id[bi], merged_map_to_id[bj])
                bond.SetStereo(b.GetStereo())
                bond.SetBondDir(b.GetBondDir())
    return merged_mol.GetMol()

"""rdchiral's ``rdchiralRun`` without the work that cannot change its result.

``rdchiralRun`` post-processes every RDKit ``RunReactants`` outcome in Python: it labels atoms, checks
tetrahedral and double-bond stereo against the template, stitches ring openings, restores bonds the
template did not touch, then copies or corrects the chirality of every atom and the direction of every
double bond before writing canonical SMILES.  :func:`run_template` gives the same outcomes on two paths:

**Stereo-free path.**  When neither the template (no ``@``, ``/`` or ``\\`` in its SMARTS) nor the product (no
chiral tag, no bond direction) carries any stereo, every one of those stereo steps leaves the outcome as it is:

- an atom-chirality check compares two unspecified centres (rdchiral's "achiral & achiral -> match");
- a double-bond check compares a template definition of ``(NONE, NONE)`` with the product's ``(NONE, NONE)``;
- copying a chirality tag copies "unspecified" onto an atom that RunReactants left unspecified (the achiral
  product copy is the only source of atoms besides the template), so nothing is inverted and no outcome
  is skipped for a broken centre;
- restoring double-bond directions finds none to restore.

Only the steps that can change the result run (labels, stitching, missing bonds, sanitisation, the mapped and
the canonical SMILES).

**Stereo path** (everything else).  rdchiral's loop with its stereo checks and corrections, but chirality is copied
only onto the product atoms that have some (the others are unspecified already, see above), double-bond directions
are restored only when the product has any, and ``atoms_changed`` is not computed.  On USPTO-50K products with
stereo this takes about a quarter less time than ``rdchiralRun`` (docs/benchmarks.md, "Template application with
stereo").

Both paths give rdchiral's outcomes and mapped SMILES (``tests/retro/test_fast_rdchiral.py`` compares them on
USPTO-50K products with the library's templates), with one deliberate difference: the chirality copy is
``chem.sulfinyl_stereo.copy_chirality``, which also keeps a sulfinyl sulfur's configuration (rdchiral left a
three-coordinate S(=O) unspecified); the comparisons run rdchiral with that copy installed.  ``atoms_changed``, the second item of each mapped entry, is an
empty tuple: no caller of this module reads it.  rdchiral's own diagnostics (it prints when it cannot restore half
of a double bond) are not reproduced.
"""

from __future__ import annotations

import re
from typing import Any

import rdchiral.main as rdchiral_main
from rdchiral.bonds import BondDirOpposite, restore_bond_stereo_to_sp2_atom
from rdchiral.chiral import atom_chirality_matches, template_atom_could_have_been_tetra
from rdchiral.clean import combine_enantiomers_into_racemic
from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem
from rdkit.Chem import AllChem
from rdkit.Chem.rdchem import BondDir, BondType, ChiralType

from molx_agent.chem.sulfinyl_stereo import copy_chirality

__all__ = ["is_stereo_free_reactants", "is_stereo_free_template", "run_template", "uses_stereo_path"]

_NO_DIRS = (BondDir.NONE, BondDir.NONE)
#: An atom-map number at the end of a bracket atom (``[CH3:12]``).
_MAP_NUMBER = re.compile(r":\d+\]")
_UNSPECIFIED = ChiralType.CHI_UNSPECIFIED


#: An atom's chirality in SMARTS: ``@`` inside a bracket atom.  Outside brackets ``@`` is the ring-bond primitive
#: (``-;!@`` in a named template's "not in a ring"), which is not stereo.
_BRACKET_CHIRALITY = re.compile(r"\[[^\]]*@")


def is_stereo_free_template(rxn: rdchiralReaction) -> bool:
    """True when the template sets and checks no stereo: no chiral tag (``@`` in a bracket atom), no bond direction
    (cached on ``rxn``).  A ring-bond query (``@``, ``!@`` between atoms) is not stereo."""
    cached = getattr(rxn, "_molx_stereo_free", None)
    if cached is None:
        smarts = rxn.reaction_smarts
        cached = (
            not _BRACKET_CHIRALITY.search(smarts) and "/" not in smarts and "\\" not in smarts
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


def uses_stereo_path(rxn: rdchiralReaction, reactants: rdchiralReactants) -> bool:
    """Whether :func:`run_template` takes the stereo path: the template or the product carries stereo."""
    return not (is_stereo_free_template(rxn) and is_stereo_free_reactants(reactants))


def run_template(
    rxn: rdchiralReaction, reactants: rdchiralReactants, *, combine_enantiomers: bool = True,
    return_mapped: bool = False,
) -> Any:
    """``rdchiralRun(rxn, reactants, combine_enantiomers=..., return_mapped=...)``, faster.

    The same outcomes as rdchiral, in the same form (a list of canonical SMILES; with ``return_mapped`` also
    the dict of mapped SMILES, whose ``atoms_changed`` is empty).
    """
    stereo = uses_stereo_path(rxn, reactants)
    result = _run_with_stereo(rxn, reactants) if stereo else _run_stereo_free(rxn, reactants)
    if result is None:
        return []  # as rdchiral: no RunReactants outcome gives a bare empty list, even with return_mapped
    final, mapped = result
    if combine_enantiomers and stereo:  # only merges outcomes that differ in stereo: none without any
        final = list(combine_enantiomers_into_racemic(set(final)))
    return (final, mapped) if return_mapped else final


def _run_stereo_free(rxn: rdchiralReaction, reactants: rdchiralReactants) -> tuple[list[str], dict] | None:
    """rdchiralRun's loop (rdchiral 1.1.0, ``main.py``) with the stereo steps that are no-ops here left out;
    ``None`` when RDKit's RunReactants gives no outcome."""
    outcomes = _run_reactants(rxn, reactants)
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
        mapnums, atoms_rt = _label(outcome, mapnum_of_idx, atoms_rt_map)
        unknown = atoms_rt.keys() - atoms_r.keys()
        if unknown:  # rdchiral's chirality check reads every matched atom of the product: it raises KeyError
            raise KeyError(f"template atoms matched to no product atom: {sorted(unknown)}")
        # every double-bond definition of template and product is (NONE, NONE): no outcome is skipped
        outcome, idx_p = _merge(outcome, mapnums)
        outcome = _restore_missing_bonds(outcome, idx_p, bonds_by_mapnum, atoms_rt, template_r)
        try:
            Chem.SanitizeMol(outcome)
            outcome.UpdatePropertyCache()
        except ValueError:
            continue
        # every atom carries a map number (_label), so the mapped SMILES brackets every atom with its hydrogens and
        # charge; without the numbers it is the same molecule, and rdchiral's SMILES -> molecule -> SMILES cycle
        # reads it instead of a second SMILES written from the outcome (no stereo to clean up on this path)
        mapped_outcome = Chem.MolToSmiles(outcome, True)
        _record(_MAP_NUMBER.sub("]", mapped_outcome), mapped_outcome, final, mapped_outcomes)
    return list(final), mapped_outcomes


def _run_with_stereo(rxn: rdchiralReaction, reactants: rdchiralReactants) -> tuple[list[str], dict] | None:
    """rdchiralRun's loop (rdchiral 1.1.0, ``main.py``) with its stereo handling, minus the work that cannot change
    an outcome; ``None`` when RDKit's RunReactants gives no outcome.

    Left out, each a proven no-op or unread:

    - copying the chirality of a product atom the template did not match when that atom has none: RunReactants ran
      on the achiral copy of the product, so the outcome atom is unspecified already, and ``copy_chirality`` of an
      unspecified source sets "unspecified" and finds nothing to invert;
    - restoring double-bond directions when the product has none (``bond_dirs_by_mapnum`` empty): every direction
      ``restore_bond_stereo_to_sp2_atom`` could set is read from that dict;
    - ``atoms_changed`` (an empty tuple, as on the stereo-free path).
    """
    outcomes = _run_reactants(rxn, reactants)
    if not outcomes:
        return None
    final: set[str] = set()
    mapped_outcomes: dict[str, tuple[str, tuple]] = {}
    atoms_rt_map, atoms_pt_map = rxn.atoms_rt_map, rxn.atoms_pt_map
    template_r = rxn.template_r
    atoms_r = reactants.atoms_r
    bonds_by_mapnum = reactants.bonds_by_mapnum
    bond_dirs = reactants.bond_dirs_by_mapnum
    mapnum_of_idx = _mapnums(reactants)
    chiral = _chiral_mapnums(reactants)
    for outcome in outcomes:
        mapnums, atoms_rt = _label(outcome, mapnum_of_idx, atoms_rt_map)
        for i, a in atoms_rt.items():  # the template atoms take the product's map numbers (rdchiral does)
            a.SetAtomMapNum(i)
        # tetrahedral centres: the template's against the product's
        prev = None
        skip = False
        for i in atoms_rt:
            match = atom_chirality_matches(atoms_rt[i], atoms_r[i])
            if match == 0:
                skip = True
                break
            if match == 2:
                continue
            if prev is None:
                prev = match
            elif match != prev:
                skip = True
                break
        if skip:
            continue
        # double bonds: the template's definitions against the product's
        for atoms, dirs, is_implicit in reactants.atoms_across_double_bonds:
            if all(i in atoms_rt for i in atoms):
                matched = tuple(rxn.atoms_rt_idx_to_map[atoms_rt[i].GetIdx()] for i in atoms)
                if matched not in rxn.required_rt_bond_defs:
                    continue
                dirs_template = rxn.required_rt_bond_defs[matched]
                if dirs != dirs_template \
                        and (BondDirOpposite[dirs[0]], BondDirOpposite[dirs[1]]) != dirs_template \
                        and not (dirs_template == _NO_DIRS and is_implicit):
                    skip = True
                    break
        if skip:
            continue
        outcome, idx_p = _merge(outcome, mapnums)
        outcome = _restore_missing_bonds(outcome, idx_p, bonds_by_mapnum, atoms_rt, template_r)
        atoms_p = {n: outcome.GetAtomWithIdx(k) for n, k in idx_p.items()}
        atoms_pt = {n: atoms_pt_map[a.GetIntProp("old_mapno")] for n, a in atoms_p.items() if a.HasProp("old_mapno")}
        for i, a in atoms_pt.items():  # the template atoms take the product's map numbers (rdchiral does)
            a.SetAtomMapNum(i)
        try:
            Chem.SanitizeMol(outcome)
            outcome.UpdatePropertyCache()
        except ValueError:
            continue
        # tetrahedral chirality of the outcome: chiral product atoms outside the template, then the template atoms
        tetra_copied: list[Chem.Atom] = []
        for n in chiral:
            a = atoms_p.get(n)
            if a is None or a.HasProp("old_mapno") or not a.HasProp("react_atom_idx"):
                continue  # not in this outcome, or a template atom (below)
            copy_chirality(atoms_r[n], a)
            if a.GetChiralTag() != _UNSPECIFIED:
                tetra_copied.append(a)
        for n in atoms_pt:
            a = atoms_p[n]
            if template_atom_could_have_been_tetra(atoms_rt[n]):
                if template_atom_could_have_been_tetra(atoms_pt[n]):
                    if atoms_pt[n].GetChiralTag() == _UNSPECIFIED:
                        a.SetChiralTag(_UNSPECIFIED)
                    elif atoms_rt[n].GetChiralTag() == _UNSPECIFIED:
                        copy_chirality(atoms_pt[n], a)
                    else:
                        copy_chirality(atoms_r[n], a)
                        if atom_chirality_matches(atoms_pt[n], atoms_rt[n]) == -1:
                            a.InvertChirality()
            elif not template_atom_could_have_been_tetra(atoms_pt[n]):
                copy_chirality(atoms_r[n], a)
                if a.GetChiralTag() != _UNSPECIFIED:
                    tetra_copied.append(a)
            else:
                copy_chirality(atoms_pt[n], a)
        if bond_dirs:  # double-bond directions from the product (none to restore without any)
            for b in outcome.GetBonds():
                if b.GetBondType() != BondType.DOUBLE or b.IsInRing():
                    continue
                ba, bb = b.GetBeginAtom(), b.GetEndAtom()
                if ba.GetDegree() == 1 or bb.GetDegree() == 1:
                    continue
                if ba.HasProp("old_mapno") and bb.HasProp("old_mapno"):
                    if (ba.GetIntProp("old_mapno"), bb.GetIntProp("old_mapno")) in rxn.required_bond_defs_coreatoms:
                        continue
                elif not ba.HasProp("react_atom_idx") and not bb.HasProp("react_atom_idx"):
                    continue
                if restore_bond_stereo_to_sp2_atom(ba, bond_dirs):
                    restore_bond_stereo_to_sp2_atom(bb, bond_dirs)
        mapped_outcome = _write_and_clear_maps(outcome)
        if tetra_copied:
            Chem.AssignStereochemistry(outcome, cleanIt=True, force=True)
            if any(a.GetChiralTag() == _UNSPECIFIED for a in tetra_copied):
                continue
        _record(Chem.MolToSmiles(outcome, True), mapped_outcome, final, mapped_outcomes)
    return list(final), mapped_outcomes


def _chiral_mapnums(reactants: rdchiralReactants) -> tuple[int, ...]:
    """Map numbers of the product atoms with a tetrahedral tag (cached on ``reactants``)."""
    cached = getattr(reactants, "_molx_chiral", None)
    if cached is None:
        cached = tuple(n for n, a in reactants.atoms_r.items() if a.GetChiralTag() != _UNSPECIFIED)
        reactants._molx_chiral = cached
    return cached


def _label(outcome: tuple[Chem.Mol, ...], mapnum_of_idx: list[int],
           atoms_rt_map: dict[int, Chem.Atom]) -> tuple[list[int], dict[int, Chem.Atom]]:
    """rdchiral's labels: product atoms take their product map number, new atoms 900 and up.  Returns every atom's
    map number (outcome molecules in order, all non-zero) and the template atom matched to each map number."""
    unmapped = 900
    atoms_rt: dict[int, Chem.Atom] = {}
    mapnums: list[int] = []
    for m in outcome:
        for a in m.GetAtoms():
            if a.HasProp("react_atom_idx"):
                n = mapnum_of_idx[a.GetIntProp("react_atom_idx")]
                a.SetAtomMapNum(n)
            else:
                n = a.GetAtomMapNum()
            if not n:
                n = unmapped
                a.SetAtomMapNum(n)
                unmapped += 1
            mapnums.append(n)
            if a.HasProp("old_mapno"):
                atoms_rt[n] = atoms_rt_map[a.GetIntProp("old_mapno")]
    return mapnums, atoms_rt


def _merge(outcome: tuple[Chem.Mol, ...], mapnums: list[int]) -> tuple[Chem.Mol, dict[int, int]]:
    """The outcome's molecules as one (a ring opening stitched, as rdchiral does) and each map number's atom index."""
    if len(mapnums) != len(set(mapnums)):
        merged = _stitch(outcome)
        return merged, {a.GetAtomMapNum(): a.GetIdx() for a in merged.GetAtoms() if a.GetAtomMapNum()}
    merged = outcome[0]
    for j in range(1, len(outcome)):
        merged = AllChem.CombineMols(merged, outcome[j])
    # CombineMols appends each molecule's atoms in order: atom k carries mapnums[k]
    return merged, {n: k for k, n in enumerate(mapnums)}


def _restore_missing_bonds(outcome: Chem.Mol, idx_p: dict[int, int], bonds_by_mapnum: list,
                           atoms_rt: dict[int, Chem.Atom], template_r: Chem.Mol) -> Chem.Mol:
    """rdchiral's restoration of product bonds between outcome atoms that neither RDKit nor the template kept (a
    ring bond between two matched atoms the template does not bond).  A new molecule when bonds were added; atom
    indices stay those of ``idx_p``."""
    missing_bonds = []
    for i, j, b in bonds_by_mapnum:
        if i in idx_p and j in idx_p \
                and not outcome.GetBondBetweenAtoms(idx_p[i], idx_p[j]) \
                and (i not in atoms_rt or j not in atoms_rt
                     or not template_r.GetBondBetweenAtoms(atoms_rt[i].GetIdx(), atoms_rt[j].GetIdx())):
            missing_bonds.append((i, j, b))
    if not missing_bonds:
        return outcome
    rw = Chem.RWMol(outcome)
    for i, j, b in missing_bonds:
        rw.AddBond(idx_p[i], idx_p[j])
        new_b = rw.GetBondBetweenAtoms(idx_p[i], idx_p[j])
        new_b.SetBondType(b.GetBondType())
        new_b.SetBondDir(b.GetBondDir())
        new_b.SetIsAromatic(b.GetIsAromatic())
    return rw.GetMol()


def _run_reactants(rxn: rdchiralReaction, reactants: rdchiralReactants) -> tuple:
    """RDKit's outcomes of the template on the achiral copy of the product (template map numbers reset first)."""
    rxn.reset()
    return rxn.rxn.RunReactants((reactants.reactants_achiral,))


def _write_and_clear_maps(outcome: Chem.Mol) -> str:
    """The outcome's atom-mapped SMILES; its map numbers are cleared afterwards."""
    mapped = Chem.MolToSmiles(outcome, True)
    for a in outcome.GetAtoms():
        a.SetAtomMapNum(0)
    return mapped


def _record(unmapped: str, mapped: str, final: set[str], mapped_outcomes: dict[str, tuple[str, tuple]]) -> None:
    """Add an outcome, given as SMILES without map numbers, under rdchiral's canonical SMILES: a full SMILES -> mol
    -> SMILES cycle, components sorted, looked up on rdchiral's module so that
    ``retro.fast_rdkit.memoised_outcome_canonicalisation`` applies; an outcome that does not survive the cycle is
    left out, as rdchiral does."""
    smiles = rdchiral_main.canonicalize_outcome_smiles(unmapped)
    if smiles is not None:
        final.add(smiles)
        mapped_outcomes[smiles] = (mapped, ())


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

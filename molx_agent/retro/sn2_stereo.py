"""Inversion at a stereocentre where a leaving group takes the nucleophile's place (SN2, Mitsunobu).

rdchiral gives a precursor atom the product atom's configuration whenever the template does not state one: a
general (radius-0) or named template that disconnects the bond between a stereocentre and a nucleophile and puts
a leaving group there proposes the precursor with the leaving group where the nucleophile was, in the same
configuration.  That is retention, and a substitution at an sp3 carbon by a nucleophile (SN2 on a halide or
sulfonate, Mitsunobu on an alcohol) inverts it: the (R)-aryl ether of crizotinib comes from the (S)-alcohol
(Mitsunobu) or the (S)-halide, and a model that proposes the (R)-alcohol names the wrong enantiomer.  A template
that drops the configuration (a radius-1 template extracted from an achiral reaction) leaves the precursor
unspecified, a racemate for a single-enantiomer product.

:func:`invert_substitution_centres` corrects both: on a template that replaces a bond of an sp3 carbon by a bond to
a leaving group (Cl, Br, I, a sulfonate or hydroxy oxygen, or a named template's leaving-group marker), each
outcome's carbon that is a stereocentre in the product and has exactly that exchange (one N, O or S neighbour lost,
one leaving group gained, the same hydrogens) gets the inverted configuration, unless an amine or a thioether on the
next carbon can displace the leaving group first (an aziridinium or episulfonium ion: two inversions, retention).  A template that already states the
inversion is left as it is (the check is geometric, not a flip).  Epoxide openings (the leaving oxygen stays in the
product) and reactions that keep the carbon's bonds (esterification, SNAr on the other partner) are not touched.

In USPTO-50K training reactions whose recorded product and reactant both carry the configuration, an O-nucleophile
replacing a hydroxy group inverts it 30 times and retains it 11 times, an N-nucleophile replacing a sulfonate
inverts it 14 times out of 14; an N-nucleophile replacing a hydroxy group inverts it 6 times and retains it 8 times,
three of those 8 with an amine on the next carbon (docs/benchmarks.md, "Inversion at a substituted stereocentre").
"""

from __future__ import annotations

from typing import Any

import rdchiral.main as rdchiral_main
from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem
from rdkit.Chem.rdchem import ChiralType

__all__ = ["invert_substitution_centres", "is_substitution_template"]

_TETRAHEDRAL = (ChiralType.CHI_TETRAHEDRAL_CW, ChiralType.CHI_TETRAHEDRAL_CCW)
_OPPOSITE = {ChiralType.CHI_TETRAHEDRAL_CW: ChiralType.CHI_TETRAHEDRAL_CCW,
             ChiralType.CHI_TETRAHEDRAL_CCW: ChiralType.CHI_TETRAHEDRAL_CW}
_HALOGENS = (17, 35, 53)
_NOT_SINGLE = (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE, Chem.BondType.AROMATIC)
#: The product atoms whose bond to the stereocentre counts as the nucleophile's: N, O, S.  A carbon nucleophile
#: (cyanide, an enolate) inverts as well, but a C-C bond to a stereocentre from a halide is as often a coupling or an
#: SN1 alkylation, which need not, so those are left as the template gives them.
_NUCLEOPHILES = (7, 8, 16)


def _leaving_atom(atom: Chem.Atom, carbon_idx: int) -> bool:
    """Whether ``atom`` (bonded to the carbon at ``carbon_idx``) is a leaving group's atom: Cl, Br, I, a named
    template's marker (atomic number 0), a hydroxy oxygen or a sulfonate oxygen."""
    z = atom.GetAtomicNum()
    if z in _HALOGENS or z == 0:
        return True
    if z != 8 or atom.GetFormalCharge() != 0:
        return False
    others = [n for n in atom.GetNeighbors() if n.GetIdx() != carbon_idx]
    if not others:
        return True  # hydroxy (Mitsunobu)
    if len(others) != 1 or others[0].GetAtomicNum() != 16:
        return False
    oxo = sum(1 for b in others[0].GetBonds()
              if b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(others[0]).GetAtomicNum() == 8)
    return oxo >= 2  # O-S(=O)(=O)-R


def is_substitution_template(rxn: rdchiralReaction) -> bool:
    """Whether the (retro) template gives an aliphatic carbon a new leaving-group atom in place of a bond it has in
    the product (cached on ``rxn``).  Only such templates can need :func:`invert_substitution_centres`."""
    cached = getattr(rxn, "_molx_substitution", None)
    if cached is not None:
        return cached
    rt_map, pt_map = rxn.atoms_rt_idx_to_map, rxn.atoms_pt_idx_to_map
    rt_by_map = {m: i for i, m in rt_map.items() if m}
    found = False
    for atom in rxn.template_p.GetAtoms():
        m = pt_map.get(atom.GetIdx(), 0)
        if not m or m not in rt_by_map or atom.GetAtomicNum() != 6 or atom.GetIsAromatic() \
                or any(b.GetBondType() in _NOT_SINGLE for b in atom.GetBonds()):
            continue  # only a saturated carbon can be a tetrahedral stereocentre
        new = [n for n in atom.GetNeighbors() if pt_map.get(n.GetIdx(), 0) not in rt_by_map]
        if not any(_leaving_atom(n, atom.GetIdx()) for n in new):
            continue
        kept = {pt_map.get(n.GetIdx(), 0) for n in atom.GetNeighbors()}
        product_atom = rxn.template_r.GetAtomWithIdx(rt_by_map[m])
        if any(rt_map.get(n.GetIdx(), 0) not in kept for n in product_atom.GetNeighbors()):
            found = True
            break
    rxn._molx_substitution = found
    return found


def _participates(atom: Chem.Atom) -> bool:
    """An amine nitrogen or a thioether sulfur that can displace a leaving group on the next carbon (aziridinium,
    episulfonium): not aromatic, no acyl or sulfonyl on it, no charge."""
    if atom.GetIsAromatic() or atom.GetFormalCharge() != 0 or atom.GetAtomicNum() not in (7, 16):
        return False
    for nbr in atom.GetNeighbors():
        for b in nbr.GetBonds():
            other = b.GetOtherAtom(nbr)
            if other.GetIdx() != atom.GetIdx() and b.GetBondType() == Chem.BondType.DOUBLE \
                    and other.GetAtomicNum() in (8, 16):
                return False  # an amide, carbamate, urea or sulfonamide nitrogen
    if atom.GetAtomicNum() == 16:
        return atom.GetDegree() == 2 and all(b.GetBondType() == Chem.BondType.SINGLE for b in atom.GetBonds())
    return True


def _neighbouring_group(carbon: Chem.Atom, leaving: Chem.Atom) -> bool:
    """Whether an amine or a thioether on the next carbon can take the leaving group off first (two inversions,
    retention overall, as in the 2-amino-1-aryl-ethanol to 1,2-diamine displacements of USPTO-50K)."""
    for nbr in carbon.GetNeighbors():
        if nbr.GetIdx() == leaving.GetIdx() or nbr.GetAtomicNum() != 6:
            continue
        if any(_participates(x) for x in nbr.GetNeighbors() if x.GetIdx() != carbon.GetIdx()):
            return True
    return False


def _permutation_is_odd(first: list[Any], second: list[Any]) -> bool:
    """Whether reordering ``first`` into ``second`` (the same distinct items) takes an odd number of swaps."""
    perm = [first.index(x) for x in second]
    odd = False
    seen = [False] * len(perm)
    for i in range(len(perm)):
        j, length = i, 0
        while not seen[j]:
            seen[j] = True
            j = perm[j]
            length += 1
        if length and length % 2 == 0:
            odd = not odd
    return odd


def _invert_in(mol: Chem.Mol, product_atoms: dict[int, Chem.Atom], chiral: frozenset[int]) -> bool:
    """Set the inverted configuration on each substituted stereocentre of the mapped outcome ``mol``; whether any
    atom's tag changed."""
    changed = False
    for atom in mol.GetAtoms():
        m = atom.GetAtomMapNum()
        if m not in chiral or atom.GetAtomicNum() != 6 or atom.GetIsAromatic():
            continue
        p_atom = product_atoms[m]
        if atom.GetTotalNumHs() != p_atom.GetTotalNumHs():
            continue
        p_maps = [b.GetOtherAtom(p_atom).GetAtomMapNum() for b in p_atom.GetBonds()]
        o_nbrs = [b.GetOtherAtom(atom) for b in atom.GetBonds()]
        o_maps = [n.GetAtomMapNum() for n in o_nbrs]
        lost = [x for x in p_maps if x not in o_maps]
        gained = [i for i, x in enumerate(o_maps) if x not in p_maps or x == 0]
        if len(lost) != 1 or len(gained) != 1 or len(p_maps) != len(o_maps) or len(p_maps) < 3:
            continue
        if not _leaving_atom(o_nbrs[gained[0]], atom.GetIdx()):
            continue
        nucleophile = next(b.GetOtherAtom(p_atom) for b in p_atom.GetBonds()
                           if b.GetOtherAtom(p_atom).GetAtomMapNum() == lost[0])
        if nucleophile.GetAtomicNum() not in _NUCLEOPHILES or _neighbouring_group(atom, o_nbrs[gained[0]]):
            continue
        first = ["X" if x == lost[0] else x for x in p_maps]
        second = ["X" if i == gained[0] else x for i, x in enumerate(o_maps)]
        if len(set(second)) != len(second) or set(first) != set(second):
            continue
        p_tag = p_atom.GetChiralTag()
        # retention would be the product's tag for an even reordering of the neighbours, the opposite for an odd one
        wanted = p_tag if _permutation_is_odd(first, second) else _OPPOSITE[p_tag]
        if atom.GetChiralTag() != wanted:
            atom.SetChiralTag(wanted)
            changed = True
    return changed


def invert_substitution_centres(
    rxn: rdchiralReaction, target: rdchiralReactants, outcomes: list[str], mapped: dict[str, tuple[str, tuple]]
) -> tuple[list[str], dict[str, tuple[str, tuple]]]:
    """``run_template``'s outcomes (canonical SMILES) and mapped outcomes with every substituted stereocentre
    inverted (see the module docstring); the inputs themselves when nothing changes.  Outcomes that become equal
    are kept once; order follows ``outcomes``."""
    if not outcomes or not is_substitution_template(rxn):
        return outcomes, mapped
    product_atoms = target.atoms_r
    chiral = frozenset(m for m, a in product_atoms.items() if a.GetChiralTag() in _TETRAHEDRAL)
    if not chiral:
        return outcomes, mapped
    new_outcomes: list[str] = []
    new_mapped: dict[str, tuple[str, tuple]] = {}
    any_change = False
    for smi in outcomes:
        entry = mapped.get(smi)
        try:
            mol = Chem.MolFromSmiles(entry[0]) if entry and entry[0] else None
            changed = mol is not None and _invert_in(mol, product_atoms, chiral)
        except Exception:  # noqa: BLE001 - an outcome this check cannot read stays as rdchiral gave it
            changed = False
        if changed:
            mapped_smiles = Chem.MolToSmiles(mol)
            for a in mol.GetAtoms():
                a.SetAtomMapNum(0)
            canon = rdchiral_main.canonicalize_outcome_smiles(Chem.MolToSmiles(mol))
            if canon is not None:
                any_change = True
                if canon not in new_mapped:
                    new_outcomes.append(canon)
                    new_mapped[canon] = (mapped_smiles, ())
                continue
        if smi not in new_mapped:
            new_outcomes.append(smi)
            if entry is not None:
                new_mapped[smi] = entry
    return (new_outcomes, new_mapped) if any_change else (outcomes, mapped)

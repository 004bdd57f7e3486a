"""The configuration of a carbon where a leaving group takes a nucleophile's place (SN2, Mitsunobu): inverted.

A precursor proposed for a product stereocentre by cutting its bond to an N, O or S nucleophile and putting a leaving
group (Cl, Br, I, a hydroxy or sulfonate oxygen, a named template's leaving-group marker) in its place must have the
inverted configuration: a substitution at an sp3 carbon inverts it.  The exception is an amine or thioether on the next
carbon, which displaces the leaving group first (an aziridinium or episulfonium ion: two inversions, retention).
A carbon nucleophile is left alone (a coupling or an SN1 alkylation is as likely).

:func:`invert_substituted_centres` works on an atom-mapped precursor and the product's atoms by map number; the
template engine (``retro.sn2_stereo``) and bond capping (``chem.smart_cap``) use it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from rdkit import Chem
from rdkit.Chem.rdchem import ChiralType

__all__ = ["TETRAHEDRAL", "invert_substituted_centres", "is_leaving_atom"]

TETRAHEDRAL = (ChiralType.CHI_TETRAHEDRAL_CW, ChiralType.CHI_TETRAHEDRAL_CCW)
_OPPOSITE = {ChiralType.CHI_TETRAHEDRAL_CW: ChiralType.CHI_TETRAHEDRAL_CCW,
             ChiralType.CHI_TETRAHEDRAL_CCW: ChiralType.CHI_TETRAHEDRAL_CW}
_HALOGENS = (17, 35, 53)
#: The product atoms whose bond to the stereocentre counts as the nucleophile's: N, O, S.  A carbon nucleophile
#: (cyanide, an enolate) inverts as well, but a C-C bond to a stereocentre from a halide is as often a coupling or an
#: SN1 alkylation, which need not, so those are left as the template gives them.
_NUCLEOPHILES = (7, 8, 16)


def is_leaving_atom(atom: Chem.Atom, carbon_idx: int) -> bool:
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


def invert_substituted_centres(mol: Chem.Mol, product_atoms: Mapping[int, Chem.Atom], chiral: Collection[int]) -> bool:
    """Give each substituted stereocentre of the atom-mapped precursor ``mol`` the inverted configuration, in place;
    whether any atom's tag changed.

    ``product_atoms``: the product's atoms by map number (every product atom mapped); ``chiral``: the map numbers of
    its stereocentres (only tetrahedral ones are read).  A precursor atom qualifies when its map number is in ``chiral``, it is a saturated
    carbon with the product atom's hydrogens, it lost exactly one N/O/S neighbour and gained exactly one leaving-group
    atom (unmapped, or mapped to no product neighbour), and no amine or thioether sits on the next carbon.  The
    configuration is set by permutation parity against the product's, so an inverted precursor stays as it is.
    """
    changed = False
    for atom in mol.GetAtoms():
        m = atom.GetAtomMapNum()
        if m not in chiral or atom.GetAtomicNum() != 6 or atom.GetIsAromatic():
            continue
        p_atom = product_atoms[m]
        if p_atom.GetChiralTag() not in TETRAHEDRAL or atom.GetTotalNumHs() != p_atom.GetTotalNumHs():
            continue
        p_nbrs = [b.GetOtherAtom(p_atom) for b in p_atom.GetBonds()]
        p_maps = [n.GetAtomMapNum() for n in p_nbrs]
        o_nbrs = [b.GetOtherAtom(atom) for b in atom.GetBonds()]
        o_maps = [n.GetAtomMapNum() for n in o_nbrs]
        lost = [x for x in p_maps if x not in o_maps]
        gained = [i for i, x in enumerate(o_maps) if x not in p_maps or x == 0]
        if len(lost) != 1 or len(gained) != 1 or len(p_maps) != len(o_maps) or len(p_maps) < 3:
            continue
        if not is_leaving_atom(o_nbrs[gained[0]], atom.GetIdx()):
            continue
        nucleophile = p_nbrs[p_maps.index(lost[0])]
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

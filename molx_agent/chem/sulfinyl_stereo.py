"""Stereocentres at a sulfinyl sulfur kept through template application (sulfoxides, sulfinamides, sulfinates,
Ellman's tert-butanesulfinamide and its imines; the selenium analogues).

rdchiral copies a product atom's configuration to the precursor only when the atom keeps four neighbours or three
single bonds: a three-coordinate atom with a double bond is taken for sp2 and left unspecified.  A sulfinyl sulfur,
``R-S(=O)-X``, has three neighbours, a double bond and a lone pair in the fourth position; it is a configurationally
stable stereocentre (RDKit keeps its tag, ``CC(C)(C)[S@](N)=O``).  rdchiral therefore dropped it, and the precursor
of an Ellman sulfinyl imine or sulfinamide came out as tert-butanesulfinamide of no configuration, the one reagent
whose configuration is the point of the route.

:func:`copy_chirality` is rdchiral's copy with that case added: a three-coordinate S or Se with exactly one double
bond and no aromatic bond takes the product atom's configuration as a four-coordinate atom does.  RDKit's stereo
perception, which rdchiral runs on every outcome that received a copied configuration, still removes the tag where the
outcome's sulfur is no stereocentre (two like substituents).  :func:`sulfinyl_stereo_in_rdchiral` installs it in
``rdchiral.main`` for the duration of a ``with`` block, for code that calls ``rdchiralRun`` itself
(``chem.templates``); the engine's own template runner (``retro.fast_rdchiral``) calls it directly.
"""

from __future__ import annotations

import contextlib

from rdchiral.chiral import atom_chirality_matches
from rdkit import Chem
from rdkit.Chem.rdchem import BondType

from molx_agent.chem.utils import ScopedPatch

__all__ = ["copy_chirality", "is_sulfinyl_centre", "sulfinyl_stereo_in_rdchiral"]

#: Sulfur and selenium: the elements whose three-coordinate, singly double-bonded form is a stereocentre.
_CHALCOGENS = (16, 34)


def is_sulfinyl_centre(atom: Chem.Atom) -> bool:
    """Whether ``atom`` is a three-coordinate S or Se with exactly one double bond and no aromatic bond (a sulfoxide,
    sulfinamide, sulfinate, sulfinyl imine or selenoxide centre: a lone pair completes the tetrahedron)."""
    if atom.GetAtomicNum() not in _CHALCOGENS or atom.GetDegree() != 3 or atom.GetIsAromatic():
        return False
    kinds = [b.GetBondType() for b in atom.GetBonds()]
    return kinds.count(BondType.DOUBLE) == 1 and kinds.count(BondType.SINGLE) == 2


def copy_chirality(a_src: Chem.Atom, a_new: Chem.Atom) -> None:
    """rdchiral's ``copy_chirality`` (the configuration of ``a_src`` given to ``a_new``, inverted when their
    neighbours are listed in an order of opposite parity), which also copies to a sulfinyl centre."""
    if a_new.GetDegree() < 3:
        return
    if a_new.GetDegree() == 3 and not is_sulfinyl_centre(a_new) \
            and any(b.GetBondType() != BondType.SINGLE for b in a_new.GetBonds()):
        return
    a_new.SetChiralTag(a_src.GetChiralTag())
    if atom_chirality_matches(a_src, a_new) == -1:
        a_new.InvertChirality()


_patch = ScopedPatch.attribute("rdchiral.main", "copy_chirality", lambda _original: copy_chirality)


def sulfinyl_stereo_in_rdchiral() -> contextlib.AbstractContextManager[None]:
    """Within the block, ``rdchiral.main.rdchiralRun`` copies sulfinyl configurations too (re-entrant,
    thread-safe; rdchiral's own function is restored when the last block ends)."""
    return _patch()

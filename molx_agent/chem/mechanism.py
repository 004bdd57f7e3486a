"""Mechanistic sanity of one atom-mapped step, at a chemist's glance (a flag, not a proof).

A template learned from one reaction, or a general (radius-0) template, can write a C-C bond that no reagent makes:
the retro-direction rule only says which bond breaks, not whether the forward partners can form it. Two such steps
are read from the atom map (the proposing template's, ``reactants>>product``):

- ``unactivated_carbanion``: a new C-C bond whose sp3 carbon gives up a hydrogen to form it (it acts as a carbanion,
  enol or enolate: aldol, Claisen, Michael donor, alkylation) while nothing on that carbon makes the hydrogen acidic:
  no neighbouring carbonyl, imine, nitrile, nitro, sulfonyl or other heteroatom, no alkene or alkyne (allylic,
  propargylic), no heteroaryl, electron-poor or acylamino-substituted aryl ring, not doubly benzylic. Example: 4-methoxyphenethyl bromide
  "deprotonated" at its benzylic CH2 to add to cyclohexanone (a venlafaxine route of a general template); the
  literature uses 4-methoxyphenylacetonitrile, whose CH2 the nitrile activates.
- ``aniline_c_alkylation``: an aromatic C-H alkylated by an alkyl halide or sulfonate (Friedel-Crafts) on a molecule
  that carries a free aryl N-H: the halide alkylates the nitrogen first, and Lewis acids complex the amine.

A carbon that keeps its hydrogens (a Grignard, organolithium, organozinc or boronate carbon, a Barbier halide) is
never flagged, nor is an sp2 or sp carbon (arene, alkene, terminal alkyne, cyanide), nor an explicitly charged one.
On the recorded USPTO-50K reactions (atom maps of the data set) neither rule fires on a correctly mapped reaction:
see ``docs/benchmarks.md``, section "Mechanism flags".
"""

from __future__ import annotations

from typing import Any

from rdkit import Chem, rdBase

#: Atoms whose bond to an sp3 carbon makes it an alkylating agent (halides; sulfonates are read through their
#: oxygen in :func:`_leaves_alkyl`).
_HALOGENS = {17, 35, 53}

MECHANISM_TEXT = {
    "unactivated_carbanion": "the new C-C bond needs a carbanion at an unactivated C-H ({atom}): no carbonyl, "
                             "nitrile, nitro, sulfonyl, heteroatom or heteroaryl group next to it makes that "
                             "hydrogen acidic (an activated partner or an organometallic would be usual)",
    "aniline_c_alkylation": "the alkylating agent would N-alkylate the free aryl amine before it C-alkylates the "
                            "ring (Friedel-Crafts alkylation fails on free anilines)",
}


def _parse(smiles: str) -> Chem.Mol | None:
    if not smiles:
        return None
    try:
        with rdBase.BlockLogs():  # an unparsable side is answered by an empty list, not by RDKit's stderr
            return Chem.MolFromSmiles(smiles)
    except Exception:  # noqa: BLE001 - an unparsable side has no mechanism verdict
        return None


def _mapped_atoms(mol: Chem.Mol) -> dict[int, Chem.Atom]:
    return {a.GetAtomMapNum(): a for a in mol.GetAtoms() if a.GetAtomMapNum()}


def _new_cc_bonds(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom]) -> list[tuple[int, int]]:
    """Map-number pairs of the product's C-C bonds whose two atoms were not bonded among the reactants (``rmap``:
    the reactants' atoms by map number)."""
    out = []
    for bond in product.GetBonds():
        x, y = bond.GetBeginAtom(), bond.GetEndAtom()
        if x.GetAtomicNum() != 6 or y.GetAtomicNum() != 6:
            continue
        mx, my = x.GetAtomMapNum(), y.GetAtomMapNum()
        if not mx or not my or mx not in rmap or my not in rmap:
            continue
        if reactants.GetBondBetweenAtoms(rmap[mx].GetIdx(), rmap[my].GetIdx()) is None:
            out.append((mx, my))
    return out


def _double_to_heteroatom(atom: Chem.Atom, skip: int) -> bool:
    """Whether ``atom`` has a double or triple bond to N, O or S (C=O, C#N, S=O), the bond to ``skip`` aside."""
    return any(
        bond.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE)
        and bond.GetOtherAtomIdx(atom.GetIdx()) != skip and bond.GetOtherAtom(atom).GetAtomicNum() in (7, 8, 16)
        for bond in atom.GetBonds()
    )


def _ring_activates(mol: Chem.Mol, aryl: Chem.Atom) -> bool:
    """An aromatic ring through ``aryl`` that holds a heteroatom (picoline-like) or carries a nitro, nitrile,
    carbonyl or sulfonyl substituent (o-nitrotoluene-like), or an acylated N or O (the directing group of a lateral
    lithiation, e.g. an o-toluidide in the Madelung indole synthesis): its benzylic hydrogens are acidic enough."""
    for ring in mol.GetRingInfo().AtomRings():
        if aryl.GetIdx() not in ring:
            continue
        members = set(ring)
        for idx in ring:
            atom = mol.GetAtomWithIdx(idx)
            if atom.GetAtomicNum() != 6:
                return True
            for nb in atom.GetNeighbors():
                if nb.GetIdx() in members:
                    continue
                if nb.GetAtomicNum() == 7 and nb.GetFormalCharge() == 1:  # nitro
                    return True
                if _double_to_heteroatom(nb, idx):  # C=O, C#N, S(=O)
                    return True
                if nb.GetAtomicNum() in (7, 8) and any(
                        _double_to_heteroatom(acyl, nb.GetIdx()) for acyl in nb.GetNeighbors() if acyl.GetIdx() != idx):
                    return True  # an amide, carbamate or ester on the ring
    return False


def _activated(mol: Chem.Mol, atom: Chem.Atom, partner_map: int) -> bool:
    """Whether an sp3 carbon's hydrogens are acidic enough for it to act as a carbon nucleophile."""
    n_aryl = 0
    for nb in atom.GetNeighbors():
        if partner_map and nb.GetAtomMapNum() == partner_map:
            continue
        if nb.GetAtomicNum() != 6:
            return True  # an alpha heteroatom: dithiane, sulfone, phosphonate, nitroalkane, silyl, boryl, halide
        if nb.GetIsAromatic():
            n_aryl += 1
            if _ring_activates(mol, nb):
                return True
            continue
        for bond in nb.GetBonds():
            if bond.GetOtherAtomIdx(nb.GetIdx()) == atom.GetIdx():
                continue
            if bond.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE):
                return True  # alpha to C=O, C=N, C#N; allylic; propargylic
    return n_aryl >= 2  # diarylmethane, fluorene


def _free_aryl_amine(mol: Chem.Mol, atom_idx: int) -> bool:
    """Whether the reactant molecule of ``atom_idx`` carries an aniline N-H (not an amide, carbamate or
    sulfonamide N-H, not an aromatic ring N-H)."""
    fragment = next(f for f in Chem.GetMolFrags(mol) if atom_idx in f)
    for idx in fragment:
        n = mol.GetAtomWithIdx(idx)
        if n.GetAtomicNum() != 7 or n.GetIsAromatic() or n.GetFormalCharge() != 0 or n.GetTotalNumHs() == 0:
            continue
        if not any(nb.GetIsAromatic() for nb in n.GetNeighbors()):
            continue
        acylated = any(
            bond.GetBondType() == Chem.BondType.DOUBLE and bond.GetOtherAtom(nb).GetAtomicNum() in (8, 16)
            for nb in n.GetNeighbors() if not nb.GetIsAromatic() for bond in nb.GetBonds()
        )
        if not acylated:
            return True
    return False


def _leaves_alkyl(b_react: Chem.Atom, b_prod: Chem.Atom) -> bool:
    """Whether sp3 carbon ``b`` loses a halide or a sulfonate in the step (an alkylating agent). An alcohol is not
    counted: aniline and glycerol make a quinoline (Skraup) through acrolein, a real C-alkylation."""
    kept = {nb.GetAtomMapNum() for nb in b_prod.GetNeighbors() if nb.GetAtomMapNum()}
    for nb in b_react.GetNeighbors():
        if nb.GetAtomMapNum() and nb.GetAtomMapNum() in kept:
            continue
        if nb.GetAtomicNum() in _HALOGENS:
            return True
        if nb.GetAtomicNum() == 8 and any(o.GetAtomicNum() == 16 for o in nb.GetNeighbors()):
            return True  # mesylate, tosylate, triflate, sulfate
    return False


def step_mechanism(mapped_reaction: str) -> list[dict[str, Any]]:
    """Mechanism flags of one atom-mapped step ``reactants>>product``: ``[{code, atoms, reason}]`` where
    ``atoms`` are the map numbers of the new bond (nucleophilic carbon first). Empty when nothing is flagged, when
    the reaction has no atom map, or when a side does not parse."""
    if not mapped_reaction or ">>" not in mapped_reaction:
        return []
    left, _, right = mapped_reaction.partition(">>")
    reactants, product = _parse(left), _parse(right)
    if reactants is None or product is None:
        return []
    rmap, pmap = _mapped_atoms(reactants), _mapped_atoms(product)
    out: list[dict[str, Any]] = []
    for mx, my in _new_cc_bonds(reactants, product, rmap):
        for a_map, b_map in ((mx, my), (my, mx)):
            a, b = rmap[a_map], rmap[b_map]
            loses_h = a.GetTotalNumHs() > pmap[a_map].GetTotalNumHs()
            if not loses_h or a.GetFormalCharge() != 0:
                continue
            if not a.GetIsAromatic() and a.GetHybridization() == Chem.HybridizationType.SP3:
                if not _activated(reactants, a, b_map):
                    label = f"{a.GetSymbol()}{'H' * a.GetTotalNumHs()}, atom {a_map}"
                    out.append({"code": "unactivated_carbanion", "atoms": [a_map, b_map],
                                "reason": MECHANISM_TEXT["unactivated_carbanion"].format(atom=label)})
            elif a.GetIsAromatic() and not b.GetIsAromatic() and b.GetHybridization() == Chem.HybridizationType.SP3:
                if _leaves_alkyl(b, pmap[b_map]) and _free_aryl_amine(reactants, a.GetIdx()):
                    out.append({"code": "aniline_c_alkylation", "atoms": [a_map, b_map],
                                "reason": MECHANISM_TEXT["aniline_c_alkylation"]})
    return out


__all__ = ["MECHANISM_TEXT", "step_mechanism"]

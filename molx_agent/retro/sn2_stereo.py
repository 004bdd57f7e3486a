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
next carbon can displace the leaving group first (an aziridinium or episulfonium ion: two inversions, retention).
A template that already states the inversion is left as it is (the check is geometric, not a flip; the rule itself is
``chem.substitution_stereo``).  Epoxide openings (the leaving oxygen stays in the
product) and reactions that keep the carbon's bonds (esterification, SNAr on the other partner) are not touched.

In USPTO-50K training reactions whose recorded product and reactant both carry the configuration, an O-nucleophile
replacing a hydroxy group inverts it 30 times and retains it 11 times, an N-nucleophile replacing a sulfonate
inverts it 14 times out of 14; an N-nucleophile replacing a hydroxy group inverts it 6 times and retains it 8 times,
three of those 8 with an amine on the next carbon (docs/benchmarks.md, "Inversion at a substituted stereocentre").
"""

from __future__ import annotations

import rdchiral.main as rdchiral_main
from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem

from molx_agent.chem.substitution_stereo import invert_substituted_centres, is_leaving_atom
from molx_agent.retro.fast_rdchiral import _chiral_mapnums, _write_and_clear_maps

__all__ = ["invert_substitution_centres", "is_substitution_template"]

_NOT_SINGLE = (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE, Chem.BondType.AROMATIC)


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
        if not any(is_leaving_atom(n, atom.GetIdx()) for n in new):
            continue
        kept = {pt_map.get(n.GetIdx(), 0) for n in atom.GetNeighbors()}
        product_atom = rxn.template_r.GetAtomWithIdx(rt_by_map[m])
        if any(rt_map.get(n.GetIdx(), 0) not in kept for n in product_atom.GetNeighbors()):
            found = True
            break
    rxn._molx_substitution = found
    return found


def invert_substitution_centres(
    rxn: rdchiralReaction, target: rdchiralReactants, outcomes: list[str], mapped: dict[str, tuple[str, tuple]]
) -> tuple[list[str], dict[str, tuple[str, tuple]]]:
    """``run_template``'s outcomes (canonical SMILES) and mapped outcomes with every substituted stereocentre
    inverted (see the module docstring); the inputs themselves when nothing changes.  Outcomes that become equal
    are kept once; order follows ``outcomes``."""
    if not outcomes or not is_substitution_template(rxn):
        return outcomes, mapped
    product_atoms = target.atoms_r
    chiral = _chiral_mapnums(target)  # cached on the product across templates
    if not chiral:
        return outcomes, mapped
    new_outcomes: list[str] = []
    new_mapped: dict[str, tuple[str, tuple]] = {}
    any_change = False
    for smi in outcomes:
        entry = mapped.get(smi)
        try:
            mol = Chem.MolFromSmiles(entry[0]) if entry and entry[0] else None
            changed = mol is not None and invert_substituted_centres(mol, product_atoms, chiral)
        except Exception:  # noqa: BLE001 - an outcome this check cannot read stays as rdchiral gave it
            changed = False
        if changed:
            mapped_smiles = _write_and_clear_maps(mol)
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

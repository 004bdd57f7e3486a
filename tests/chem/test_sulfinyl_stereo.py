"""A sulfinyl sulfur keeps its configuration through template application (rdchiral left it unspecified)."""

from __future__ import annotations

import rdchiral.main as rdchiral_main
from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem

from molx_agent.chem.sulfinyl_stereo import copy_chirality, is_sulfinyl_centre, sulfinyl_stereo_in_rdchiral
from molx_agent.chem.templates import apply_named_template

# Ellman's (R)-N-sulfinyl imine of a fluoromethyl ketone: the C-F bond is made by DAST, far from the sulfur
ELLMAN_IMINE = "CC(C)(C)[S@@](=O)/N=C(/CF)c1cc(Br)cnc1F"
# the imine's condensation from the ketone and tert-butanesulfinamide, the sulfur inside the template
IMINE_CONDENSATION = "[C:1]=[N:2]-[S:3]>>[C:1]=O.[NH2:2]-[S:3]"


def _sulfur(smiles: str) -> Chem.Atom:
    mol = Chem.MolFromSmiles(smiles)
    return next(a for a in mol.GetAtoms() if a.GetSymbol() in ("S", "Se"))


def test_sulfinyl_centres_are_three_coordinate_chalcogens_with_one_double_bond():
    for smiles in ("C[S@](=O)CC", "CC(C)(C)[S@](N)=O", "CC(C)(C)[S@@](=O)/N=C/C", "CO[S@](=O)c1ccccc1",
                   "C[Se@](=O)CC"):
        assert is_sulfinyl_centre(_sulfur(smiles)), smiles
    for smiles in ("CS(=O)(=O)C",  # sulfone: four neighbours, copied by rdchiral's own rule
                   "CSC",  # thioether
                   "c1ccsc1",  # thiophene
                   "C[S+]([O-])CC",  # the charge-separated sulfoxide: three single bonds (rdchiral's own rule)
                   "CS(=O)=NC",  # sulfinimidoyl: two double bonds
                   ):
        assert not is_sulfinyl_centre(_sulfur(smiles)), smiles


def test_copy_chirality_reaches_a_sulfinyl_sulfur_and_keeps_its_configuration():
    src = Chem.MolFromSmiles("CC(C)(C)[S@@](=O)N")
    new = Chem.MolFromSmiles("CC(C)(C)S(=O)N")
    for mol in (src, new):
        for a in mol.GetAtoms():
            a.SetAtomMapNum(a.GetIdx() + 1)  # the same numbering in both (rdchiral compares neighbours by map number)
    s_src, s_new = src.GetAtomWithIdx(4), new.GetAtomWithIdx(4)
    copy_chirality(s_src, s_new)
    for mol in (src, new):
        for a in mol.GetAtoms():
            a.SetAtomMapNum(0)
    assert Chem.MolToSmiles(new) == Chem.MolToSmiles(src) == "CC(C)(C)[S@](N)=O"
    # rdchiral's own copy leaves it unspecified: the case this module adds
    from rdchiral.chiral import copy_chirality as rdchiral_copy

    plain = Chem.MolFromSmiles("CC(C)(C)S(=O)N")
    rdchiral_copy(s_src, plain.GetAtomWithIdx(4))
    assert plain.GetAtomWithIdx(4).GetChiralTag() == Chem.ChiralType.CHI_UNSPECIFIED


def test_a_named_template_far_from_the_sulfur_keeps_its_configuration():
    # deoxyfluorination of the CH2OH: the sulfinyl imine is a spectator and keeps (R)/(S) as drawn
    got = apply_named_template("G232_deoxyfluorination_dast_retro", ELLMAN_IMINE)
    assert ["CC(C)(C)[S@@](=O)/N=C(/CO)c1cc(Br)cnc1F", "CCN(CC)S(F)(F)F"] in got


def test_rdchiral_run_inside_the_block_copies_and_its_own_copy_is_restored_after():
    rxn, reactants = rdchiralReaction(IMINE_CONDENSATION), rdchiralReactants(ELLMAN_IMINE)
    original = rdchiral_main.copy_chirality
    with sulfinyl_stereo_in_rdchiral(), sulfinyl_stereo_in_rdchiral():  # re-entrant
        assert rdchiral_main.copy_chirality is copy_chirality
        inside = rdchiral_main.rdchiralRun(rxn, reactants, combine_enantiomers=False)
    assert rdchiral_main.copy_chirality is original
    outside = rdchiral_main.rdchiralRun(rdchiralReaction(IMINE_CONDENSATION), rdchiralReactants(ELLMAN_IMINE),
                                        combine_enantiomers=False)
    # (R)-tert-butanesulfinamide and the ketone; rdchiral alone gives the sulfinamide of no configuration
    assert inside == ["CC(C)(C)[S@](N)=O.O=C(CF)c1cc(Br)cnc1F"]
    assert outside == ["CC(C)(C)S(N)=O.O=C(CF)c1cc(Br)cnc1F"]

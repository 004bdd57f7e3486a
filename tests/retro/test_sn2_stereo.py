"""Inversion at a stereocentre where a leaving group takes the nucleophile's place (retro.sn2_stereo)."""

from __future__ import annotations

import pytest
from rdchiral.initialization import rdchiralReactants
from rdkit import Chem

from molx_agent.retro.fast_rdchiral import run_template
from molx_agent.retro.named_templates import compile_template, rdchiral_quiet
from molx_agent.retro.sn2_stereo import invert_substitution_centres, is_substitution_template

# the (R)-aryl ether of crizotinib's synthesis, made from the (S)-alcohol by a Mitsunobu reaction
CRIZOTINIB_ETHER = "C[C@@H](Oc1cccnc1[N+](=O)[O-])c1c(Cl)ccc(F)c1Cl"
MITSUNOBU = "[c:1]-[O;+0:2]-;!@[CX4;H1:3]>>[c:1]-[OH:2].O-[C:3]"
BROMIDE = "[c:1]-[O;+0:2]-;!@[CX4;H1:3]>>[c:1]-[OH:2].Br-[C:3]"
MESYLATE = "[N;+0:1]-;!@[CX4;H1:2]>>[NH:1].CS(=O)(=O)O-[C:2]"
SNAR = "[c:1]-[O;+0:2]-;!@[CX4;H1:3]>>[c:1]-F.[OH:2]-[C:3]"
CHIRAL_TEMPLATE = "[C:1]-[C@H;D3;+0:2](-[N:3])-[C:4]>>[C:1]-[C@@H;D3;+0:2](-[OH])-[C:4].[N:3]"


def _run(template: str, product: str, *, correct: bool = True) -> list[str]:
    rxn = compile_template(template)
    target = rdchiralReactants(product)
    with rdchiral_quiet():
        outcomes, mapped = run_template(rxn, target, combine_enantiomers=False, return_mapped=True)
    if correct:
        outcomes, mapped = invert_substitution_centres(rxn, target, outcomes, mapped)
    return sorted(outcomes)


def _cip(smiles: str, element: str) -> set[str]:
    """CIP labels of the stereocentres that carry ``element`` (or, for "C", any carbon stereocentre)."""
    mol = Chem.MolFromSmiles(smiles)
    labels = set()
    for atom in mol.GetAtoms():
        if atom.HasProp("_CIPCode") and (element == "C" or any(n.GetSymbol() == element for n in atom.GetNeighbors())):
            labels.add(atom.GetProp("_CIPCode"))
    return labels


def _precursor_with(outcomes: list[str], pattern: str) -> str:
    patt = Chem.MolFromSmarts(pattern)
    hits = [part for smi in outcomes for part in smi.split(".") if Chem.MolFromSmiles(part).HasSubstructMatch(patt)]
    assert len(hits) == 1, outcomes
    return hits[0]


def _writings(smiles: str, n: int = 6) -> list[str]:
    """The same molecule written from different atoms and in different orders (same configuration)."""
    mol = Chem.MolFromSmiles(smiles)
    out = {smiles}
    for root in range(mol.GetNumAtoms()):
        out.add(Chem.MolToSmiles(mol, rootedAtAtom=root, canonical=False))
        if len(out) >= n:
            break
    return sorted(out)


def test_rdchiral_alone_retains_the_configuration():
    # what the correction is for: the (R)-alcohol for an (R)-ether by a Mitsunobu reaction is the wrong enantiomer
    alcohol = _precursor_with(_run(MITSUNOBU, CRIZOTINIB_ETHER, correct=False), "[CX4][OX2H1]")
    assert _cip(alcohol, "O") == {"R"}


@pytest.mark.parametrize("product", _writings(CRIZOTINIB_ETHER))
def test_mitsunobu_and_sn2_precursors_have_the_inverted_configuration(product):
    assert _cip(CRIZOTINIB_ETHER, "O") == {"R"}
    alcohol = _precursor_with(_run(MITSUNOBU, product), "[CX4][OX2H1]")
    assert _cip(alcohol, "O") == {"S"}
    bromide = _precursor_with(_run(BROMIDE, product), "[CX4]Br")
    assert _cip(bromide, "Br") == {"S"}


def test_a_mesylate_displaced_by_an_amine_is_inverted():
    product = "C[C@@H](N1CCOCC1)c1ccccc1"  # (R)
    assert _cip(product, "N") == {"R"}
    mesylate = _precursor_with(_run(MESYLATE, product), "[CX4]OS(C)(=O)=O")
    assert _cip(mesylate, "O") == {"S"}  # the sulfonate oxygen takes the nitrogen's priority rank


def test_a_template_that_states_the_configuration_ends_inverted_too():
    # the template states a configuration for the carbon; whatever it says, the precursor is the inverted one
    product = "C[C@@H](N)CC"  # (R)-2-aminobutane
    alcohol = _precursor_with(_run(CHIRAL_TEMPLATE, product), "[CX4][OX2H1]")
    assert _cip(alcohol, "O") == {"S"}  # OH takes NH2's priority rank: inversion swaps the label


def test_the_correction_is_idempotent():
    rxn = compile_template(MITSUNOBU)
    target = rdchiralReactants(CRIZOTINIB_ETHER)
    with rdchiral_quiet():
        outcomes, mapped = run_template(rxn, target, combine_enantiomers=False, return_mapped=True)
    once = invert_substitution_centres(rxn, target, outcomes, mapped)
    twice = invert_substitution_centres(rxn, target, *once)
    assert once[0] == twice[0] and once[0] != outcomes


def test_snar_keeps_the_alcohols_configuration():
    # the stereocentre keeps its oxygen: not a substitution at the stereocentre
    assert not is_substitution_template(compile_template(SNAR))
    alcohol = _precursor_with(_run(SNAR, CRIZOTINIB_ETHER), "[CX4][OX2H1]")
    assert _cip(alcohol, "O") == {"R"}


def test_achiral_products_and_other_templates_are_returned_unchanged():
    rxn = compile_template(MITSUNOBU)
    target = rdchiralReactants("CC(Oc1ccccc1)c1ccccc1")  # no configuration
    with rdchiral_quiet():
        outcomes, mapped = run_template(rxn, target, combine_enantiomers=False, return_mapped=True)
    got = invert_substitution_centres(rxn, target, outcomes, mapped)
    assert got[0] is outcomes and got[1] is mapped
    amide = compile_template("[C:1](=[O;D1;H0:2])-[NH;D2;+0:3]-[c:4]>>[C:1](=[O;D1;H0:2])-[OH].[NH2;D1;+0:3]-[c:4]")
    assert not is_substitution_template(amide)


def test_a_carbon_nucleophile_is_left_as_the_template_gives_it():
    template = "[c:1]-;!@[CX4;H1:2]>>[c:1]-[B](O)O.Br-[C:2]"  # a C-C coupling at the stereocentre
    product = "C[C@@H](CC)c1ccccc1"
    assert _run(template, product) == _run(template, product, correct=False)


def test_an_amine_on_the_next_carbon_keeps_the_configuration():
    # 2-amino-1-aryl-ethanol -> 1,2-diamine: the ring nitrogen displaces the activated OH first (aziridinium), the
    # amine opens it: two inversions, so the template's retention stands
    template = "[N;+0:1]-;!@[CX4;H1:2]>>[N:1].O-[C:2]"
    product = "CN[C@H](CN1CCCC1)c1ccccc1"
    assert _run(template, product) == _run(template, product, correct=False)
    amide = "CN[C@H](CNC(C)=O)c1ccccc1"  # an amide nitrogen does not take part: inverted
    assert _run(template, amide) != _run(template, amide, correct=False)


def test_capping_a_leaving_group_onto_the_stereocentre_inverts_it():
    from molx_agent.chem.smart_cap import cap_bond, suggest_capping

    # atom 1 is the stereocentre, atom 2 the ether oxygen
    for cap, element in (("Br", "Br"), ("O", "O"), ("OS(C)(=O)=O", "O")):
        frags = cap_bond(CRIZOTINIB_ETHER, (1, 2), cap, "H")
        assert _cip(frags[0], element) == {"S"}, (cap, frags)
    williamson = next(p for p in suggest_capping(CRIZOTINIB_ETHER, (1, 2)) if p["reaction_type"] == "Williamson ether")
    assert _cip(_precursor_with(williamson["fragments"], "[CX4]Br"), "Br") == {"S"}
    # a carbon cap is no leaving group: the configuration is the product's
    methyl = cap_bond(CRIZOTINIB_ETHER, (1, 2), "C", "H")[0]
    assert Chem.MolToSmiles(Chem.MolFromSmiles(methyl)) == Chem.MolToSmiles(Chem.MolFromSmiles(
        "C[C@@H](C)c1c(Cl)ccc(F)c1Cl"))
    # beside an amine on the next carbon: retention (aziridinium), as the cap is placed
    alcohol = _precursor_with(cap_bond("CN[C@H](CN1CCCC1)c1ccccc1", (2, 1), "O", "H"), "[CX4][OX2H1]")
    assert _cip(alcohol, "O") == _cip("O[C@H](CN1CCCC1)c1ccccc1", "O") != set()


def test_the_alpha_aminoboronate_comes_from_the_inverted_alpha_chloroboronate():
    # bortezomib's (R)-alpha-aminoboronate is made from the (S)-alpha-chloroboronate by LiHMDS (Matteson): the named
    # template keeps the carbon's configuration as rdchiral copies it, the correction inverts it
    import json

    from molx_agent.retro.templates_db import DATA_DIR

    templates = json.loads((DATA_DIR / "named_templates.json").read_text(encoding="utf-8"))["templates"]
    smarts = next(t["retro_smarts"] for t in templates if t["id"] == "G355_alpha_aminoboronate_hmds_retro")
    amine = "CC(C)C[C@H](N)B1O[C@@H]2C[C@@H]3C[C@@H](C3(C)C)[C@]2(C)O1"
    assert _cip(amine, "N") == {"R"}
    retained = _precursor_with(_run(smarts, amine, correct=False), "[CX4]Cl")
    assert _cip(retained, "Cl") == {"R"}
    chloride = _precursor_with(_run(smarts, amine), "[CX4]Cl")
    assert _cip(chloride, "Cl") == {"S"}

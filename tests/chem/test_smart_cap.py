"""Smart capping (M8): the seed's 13 rules, their confidences, custom caps and bad input."""

from __future__ import annotations

import pytest
from rdkit import Chem

from molx_agent.chem.smart_cap import (
    CAPPING_RULES,
    FLUOROALKYL_NOTE,
    cap_bonds,
    chemist_reaction_name,
    custom_cap,
    grignard_acyl_halide_note,
    suggest_capping,
)
from molx_agent.errors import ChemistryError, ValidationError

SEED_RULES = {
    "Suzuki coupling": 0.92, "Negishi coupling": 0.70, "Stille coupling": 0.60, "Amide bond formation": 0.90,
    "Amide (acid chloride)": 0.80, "Ester hydrolysis": 0.88, "N-alkylation (SN2)": 0.82,
    "Reductive amination": 0.70, "Williamson ether": 0.78, "Buchwald-Hartwig": 0.80, "SNAr/Ullmann": 0.65,
    "Heck": 0.55, "Grignard": 0.45,
}


def _types(props):
    return {p["reaction_type"]: p for p in props}


def test_thirteen_seed_rules_with_their_confidences():
    assert {r.reaction_type: r.confidence for r in CAPPING_RULES} == SEED_RULES


@pytest.mark.parametrize(
    ("smiles", "bond", "reaction_type", "fragments"),
    [
        ("Cc1ccc(-c2ccccc2)cc1", (4, 5), "Suzuki coupling", ["Cc1ccc(Br)cc1", "OB(O)c1ccccc1"]),
        ("Cc1ccc(-c2ccccc2)cc1", (4, 5), "Negishi coupling", ["Cc1ccc(Br)cc1", "Cl[Zn]c1ccccc1"]),
        ("Cc1ccc(-c2ccccc2)cc1", (4, 5), "Stille coupling", ["Cc1ccc(Br)cc1", "C[Sn](C)(C)c1ccccc1"]),
        ("CC(=O)Nc1ccccc1", (1, 3), "Amide bond formation", ["CC(=O)O", "Nc1ccccc1"]),
        ("CC(=O)Nc1ccccc1", (1, 3), "Amide (acid chloride)", ["CC(=O)Cl", "Nc1ccccc1"]),
        ("CC(=O)Oc1ccccc1C(=O)O", (1, 3), "Ester hydrolysis", ["CC(=O)O", "O=C(O)c1ccccc1O"]),
        ("CN(C)Cc1ccccc1", (1, 3), "N-alkylation (SN2)", ["BrCc1ccccc1", "CNC"]),
        ("CN(C)Cc1ccccc1", (1, 3), "Reductive amination", ["CNC", "O=Cc1ccccc1"]),
        ("CCOCc1ccccc1", (2, 3), "Williamson ether", ["BrCc1ccccc1", "CCO"]),
        ("c1ccc(N2CCOCC2)cc1", (3, 4), "Buchwald-Hartwig", ["Brc1ccccc1", "C1COCCN1"]),
        ("COc1ccccc1", (1, 2), "SNAr/Ullmann", ["CO", "Fc1ccccc1"]),
        ("C=CCCc1ccccc1", (1, 2), "Heck", ["BrCCc1ccccc1", "C=C"]),
        ("CCC(C)=O", (1, 2), "Grignard", ["CC(=O)Br", "CC[Mg]Br"]),
    ],
)
def test_each_rule_caps_its_bond(smiles, bond, reaction_type, fragments):
    props = _types(suggest_capping(smiles, bond))
    assert reaction_type in props, props.keys()
    p = props[reaction_type] if reaction_type not in ("Negishi coupling", "Stille coupling", "Grignard") else None
    expected = sorted(Chem.MolToSmiles(Chem.MolFromSmiles(f)) for f in fragments)
    found = [sorted(q["fragments"]) for q in suggest_capping(smiles, bond) if q["reaction_type"] == reaction_type]
    assert expected in found
    if p is not None:
        assert p["confidence"] == SEED_RULES[reaction_type]
        assert p["description"]


def test_seed_smart_cap_example_shape():
    props = suggest_capping("CC(=O)Nc1ccccc1", [1, 3])
    top = props[0]
    assert set(top) >= {"reaction_type", "fragments", "confidence", "description"}
    assert top["reaction_type"] == "Amide bond formation" and top["confidence"] == 0.90
    assert top["fragments"] == ["CC(=O)O", "Nc1ccccc1"]
    assert top["description"] == "RC(=O)-NR₂ → RC(=O)OH + HNR₂"


def test_proposals_sorted_and_truncated():
    props = suggest_capping("Cc1ccc(-c2ccccc2)cc1", (4, 5))
    confs = [p["confidence"] for p in props]
    assert confs == sorted(confs, reverse=True)
    assert len(suggest_capping("Cc1ccc(-c2ccccc2)cc1", (4, 5), max_proposals=2)) == 2


def test_no_rule_for_aryl_ester_oxygen(aspirin):
    # Ar-O of an aryl ester is not an ether: no SNAr/Ullmann proposal
    assert suggest_capping(aspirin, (3, 4)) == []


def test_bond_given_as_index():
    assert suggest_capping("CC(=O)Nc1ccccc1", 2)[0]["fragments"] == ["CC(=O)O", "Nc1ccccc1"]


def test_custom_cap_with_aliases_keeps_stereo():
    res = custom_cap("Cc1ccc(-c2ccccc2)cc1", (4, 5), "Br", "B(OH)2")
    assert res["ok"] and res["fragments"] == ["Cc1ccc(Br)cc1", "OB(O)c1ccccc1"]
    assert res["reaction_smiles"] == "Cc1ccc(Br)cc1.OB(O)c1ccccc1>>Cc1ccc(-c2ccccc2)cc1"
    res = custom_cap("C[C@H](N)C(=O)NC", (3, 5), "OH", "H")
    assert "C[C@H](N)C(=O)O" in res["fragments"]


def test_custom_cap_double_bond_cap_and_ring_opening():
    assert custom_cap("CN(C)Cc1ccccc1", (1, 3), "H", "=O")["fragments"] == ["CNC", "O=Cc1ccccc1"]
    assert custom_cap("O=C1CCCN1", (1, 5), "OH", "H")["fragments"] == ["NCCCC(=O)O"]
    assert sorted(custom_cap("C/C=C/c1ccccc1", (1, 2), "=O", "=O")["fragments"]) == ["CC=O", "O=Cc1ccccc1"]


def test_cap_bonds_breaks_several_bonds():
    frags = cap_bonds("CC(=O)NCCNC(=O)C", [(1, 3, "O", "H"), (7, 6, "O", "H")])
    assert sorted(frags) == ["CC(=O)O", "CC(=O)O", "NCCN"]


@pytest.mark.parametrize(
    ("bond", "caps", "code"),
    [
        ((0, 9), ("H", "H"), "atom_index_out_of_range"),
        ((0, 5), ("H", "H"), "atoms_not_bonded"),
        ((2, 2), ("H", "H"), "atoms_not_bonded"),
        ((1, 2), ("Xx(", "H"), "invalid_cap"),
        ("ab", ("H", "H"), "invalid_bond"),
        (99, ("H", "H"), "bond_index_out_of_range"),
    ],
)
def test_bad_bonds_and_caps_raise_validation_errors(bond, caps, code):
    with pytest.raises(ValidationError) as exc:
        custom_cap("CCOC(=O)C", bond, *caps)
    assert exc.value.code == code
    assert exc.value.value is not None


def test_impossible_cap_and_aromatic_bond_raise_chemistry_errors():
    with pytest.raises(ChemistryError) as exc:
        custom_cap("CC(C)(C)N", (1, 4), "=O", "H")  # quaternary carbon cannot take =O
    assert exc.value.code == "capping_failed"
    with pytest.raises(ChemistryError) as exc:
        custom_cap("c1ccccc1", (0, 1), "H", "H")
    assert exc.value.code == "aromatic_bond"
    with pytest.raises(ChemistryError) as exc:
        suggest_capping("notasmiles", (0, 1))
    assert exc.value.code == "invalid_smiles"


def _ring_bond(smiles, smarts):
    """The (aromatic atom, other atom) pair of the first match of a two-atom SMARTS ``a-X`` in ``smiles``."""
    return Chem.MolFromSmiles(smiles).GetSubstructMatch(Chem.MolFromSmarts(smarts))


def _has_reagent(props, smiles):
    want = Chem.MolToSmiles(Chem.MolFromSmiles(smiles))
    return any(want in p["fragments"] for p in props)


def test_no_grignard_on_a_carbonyl_carbon_nor_a_bromide_on_a_carboxyl_carbon():
    # mefenamic acid's Ar-COOH bond: "O=[C](O)[Mg][Br]" (an acyl Grignard) and "O=C(O)Br" are no reagents
    mefenamic = "Cc1cccc(Nc2ccccc2C(=O)O)c1C"
    props = suggest_capping(mefenamic, _ring_bond(mefenamic, "a-C(=O)[OH]")[:2])
    assert not any("Mg" in f and "C(=O)" not in f and "O=" in f for p in props for f in p["fragments"])
    assert not _has_reagent(props, "O=C(O)Br")
    assert all(p["reaction_type"] != "Grignard" for p in props)
    # a ketone's acyl carbon may take the bromide (an acid bromide and a Grignard give the ketone)
    assert [sorted(p["fragments"]) for p in suggest_capping("CCC(C)=O", (1, 2)) if p["reaction_type"] == "Grignard"] \
        == [sorted([Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in ("CC(=O)Br", "CC[Mg]Br")])]


def test_no_grignard_reagent_that_carries_its_own_quencher():
    # ibuprofen's isobutyl CH2-aryl bond: the aryl Grignard that keeps the propionic acid would quench itself
    ibuprofen = "CC(C)Cc1ccc(C(C)C(=O)O)cc1"
    props = suggest_capping(ibuprofen, (3, 4))
    grignards = [f for p in props if p["reaction_type"] == "Grignard" for f in p["fragments"] if "Mg" in f]
    assert grignards and all("C(=O)O" not in f for f in grignards)  # isobutyl-MgBr on the aryl bromide stays
    assert _has_reagent(props, "CC(C)C[Mg]Br")
    # a nitroarene's Grignard (the Bartoli reaction) and a lactam N-H's: the methyl Grignard stays
    for smiles in ("Cc1ccc([N+](=O)[O-])cc1", "Cc1ccc2c(c1)CCC(=O)N2"):
        mg = [f for p in suggest_capping(smiles, (0, 1)) if p["reaction_type"] == "Grignard"
              for f in p["fragments"] if "Mg" in f]
        assert mg == [Chem.MolToSmiles(Chem.MolFromSmiles("C[Mg]Br"))], (smiles, mg)


def test_grignard_at_a_carbinol_is_the_addition_to_the_ketone():
    # tramadol's aryl-carbinol bond: the industrial route, 3-methoxyphenylmagnesium bromide on the Mannich ketone;
    # no "Heck" with a bromohydrin (CN(C)CC1CCCCC1(O)Br), which is no reagent
    tramadol = "COc1cccc(C2(O)CCCCC2CN(C)C)c1"
    props = suggest_capping(tramadol, _ring_bond(tramadol, "a-[CX4][OH]")[:2])
    assert not any("Br" in f and "O" in f and "Mg" not in f for p in props for f in p["fragments"])
    grignard = [p for p in props if p["reaction_type"] == "Grignard"]
    assert len(grignard) == 1
    assert sorted(grignard[0]["fragments"]) == sorted(
        Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in ("CN(C)CC1CCCCC1=O", "COc1cccc([Mg]Br)c1"))
    assert "Grignard addition" in grignard[0]["description"]
    precursors, product = grignard[0]["mapped_reaction"].split(">>")
    pre = Chem.MolFromSmiles(precursors)
    mapped = {a.GetAtomMapNum() for a in pre.GetAtoms() if a.GetAtomMapNum()}
    assert mapped == {a.GetAtomMapNum() for a in Chem.MolFromSmiles(product).GetAtoms()}  # every target atom mapped


def test_a_grignard_partner_with_a_free_acid_carries_a_note():
    # ibuprofen's alpha-methyl: MeMgBr meets the free acid of 2-bromo-2-arylpropionic acid before the bromide
    props = [p for p in suggest_capping("CC(C)Cc1ccc(C(C)C(=O)O)cc1", (8, 9)) if p["reaction_type"] == "Grignard"]
    assert props and any("carboxylic acid quenches the Grignard reagent" in n for n in props[0]["notes"])
    # no partner acid, no note (2-butanol: ethylmagnesium bromide on acetaldehyde)
    clean = [p for p in suggest_capping("CCC(C)O", (1, 2)) if p["reaction_type"] == "Grignard"]
    assert clean and clean[0]["notes"] == []


def test_a_grignard_on_an_acyl_halide_carries_a_note():
    # butanone's C-C(=O) bond: ethylmagnesium bromide on acetyl bromide adds twice (the tertiary alcohol)
    props = [p for p in suggest_capping("CCC(C)=O", (1, 2)) if p["reaction_type"] == "Grignard"]
    assert sorted(props[0]["fragments"]) == ["CC(=O)Br", "C[CH2][Mg][Br]"]
    assert props[0]["notes"] == [grignard_acyl_halide_note(props[0]["fragments"])]
    assert "second equivalent of the Grignard reagent" in props[0]["notes"][0]
    assert grignard_acyl_halide_note(["CC=O", "C[CH2][Mg][Br]"]) is None
    assert grignard_acyl_halide_note(["CC(=O)Cl", "CCO"]) is None  # no Grignard reagent


def test_a_self_reactive_precursor_carries_a_note():
    # bupropion's aryl-C(=O) bond: 2-(tert-butylamino)propanoyl bromide acylates its own amine
    bupropion = "CC(NC(C)(C)C)C(=O)c1cccc(Cl)c1"
    props = [p for p in suggest_capping(bupropion, _ring_bond(bupropion, "a-C=O")[:2])
             if "CC(NC(C)(C)C)C(=O)Br" in p["fragments"]]
    assert props and any("acyl halide in one molecule" in n for n in props[0]["notes"])


def test_the_heck_rule_on_an_arene_is_named_friedel_crafts():
    from molx_agent.chem.smart_cap import chemist_reaction_name

    on_arene = [p for p in suggest_capping("CC(C)Cc1ccccc1", (3, 4)) if p["reaction_type"] == "Heck"]
    assert on_arene and chemist_reaction_name("CC(C)Cc1ccccc1", on_arene[0]) == "Friedel-Crafts alkylation"
    on_alkene = [p for p in suggest_capping("C=CCCc1ccccc1", (1, 2)) if p["reaction_type"] == "Heck"]
    assert on_alkene and chemist_reaction_name("C=CCCc1ccccc1", on_alkene[0]) == "Heck"
    amide = suggest_capping("CC(=O)Nc1ccccc1", (1, 3))[0]
    assert chemist_reaction_name("CC(=O)Nc1ccccc1", amide) == amide["reaction_type"]


@pytest.mark.parametrize("smiles, name", [
    ("Nc1nc2ccc(OC(F)(F)F)cc2s1", "SNAr amination"),  # riluzole: C2 of a benzothiazole
    ("CNc1ncccn1", "SNAr amination"),  # C2 of a pyrimidine
    ("CNc1ncnc2ccccc12", "SNAr amination"),  # C4 of a quinazoline
    ("CNc1ccc([N+](=O)[O-])cc1", "SNAr amination"),  # para-nitro
    ("CNc1ccccc1", "Buchwald-Hartwig"),  # a plain aryl
    ("CNc1ccccn1", "Buchwald-Hartwig"),  # a 2-halopyridine alone: either, the rule's name stays
    ("CNc1cccc([N+](=O)[O-])c1", "Buchwald-Hartwig"),  # meta-nitro activates nothing
])
def test_an_aryl_amine_on_an_activated_carbon_is_named_an_snar_amination(smiles, name):
    from molx_agent.chem.smart_cap import chemist_reaction_name

    mol = Chem.MolFromSmiles(smiles)
    nitrogen = 0 if smiles.startswith("N") else 1
    bond = mol.GetBondBetweenAtoms(nitrogen, nitrogen + 1).GetIdx()
    buchwald = next(p for p in suggest_capping(smiles, bond) if p["reaction_type"] == "Buchwald-Hartwig")
    assert chemist_reaction_name(smiles, buchwald) == name


def test_an_arene_c_h_and_a_fluoroalkyl_bromide_is_named_a_radical_fluoroalkylation_with_a_note():
    # trifluorotoluene's Ar-CF3 bond: no Friedel-Crafts cation at CF3; CF3MgBr is no reagent either
    smiles = "FC(F)(F)c1ccccc1"
    props = suggest_capping(smiles, (1, 4))
    heck = next(p for p in props if p["reaction_type"] == "Heck")
    assert sorted(heck["fragments"]) == ["FC(F)(F)Br", "c1ccccc1"] and FLUOROALKYL_NOTE in heck["notes"]
    assert chemist_reaction_name(smiles, heck) == "radical C-H fluoroalkylation"
    grignard = next(p for p in props if p["reaction_type"] == "Grignard" and "F[C](F)(F)[Mg][Br]" in p["fragments"])
    assert any("Ruppert-Prakash" in n for n in grignard["notes"])
    # a plain alkyl stays a Friedel-Crafts alkylation without the note
    cumene = next(p for p in suggest_capping("CC(C)c1ccccc1", (1, 3)) if p["reaction_type"] == "Heck")
    assert chemist_reaction_name("CC(C)c1ccccc1", cumene) == "Friedel-Crafts alkylation"
    assert FLUOROALKYL_NOTE not in cumene["notes"]

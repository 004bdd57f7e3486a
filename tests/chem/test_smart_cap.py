"""Smart capping (M8): the seed's 13 rules, their confidences, custom caps and bad input."""

from __future__ import annotations

import pytest
from rdkit import Chem

from molx_agent.chem.smart_cap import CAPPING_RULES, cap_bonds, custom_cap, suggest_capping
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

"""M4 bond breaking: break_bond, explore-style disconnection, FGI, operations, previews, template tries."""

from __future__ import annotations

import pytest

from molx_agent.chem.bond_break import (
    break_bond,
    execute_disconnection,
    execute_fgi,
    execute_operations,
    preview_disconnections,
    resolve_template_ids,
    try_retro_template,
)
from molx_agent.errors import ChemistryError, ValidationError

IMATINIB = "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"


def test_aspirin_ester_gives_acetic_acid_and_salicylic_acid(aspirin):
    res = break_bond(aspirin, 1, 3)
    assert res["fragments"] == ["CC(=O)O", "O=C(O)c1ccccc1O"]
    assert res["reaction_smiles"] == "CC(=O)O.O=C(O)c1ccccc1O>>CC(=O)Oc1ccccc1C(=O)O"
    assert res["reaction_type"] == "Ester hydrolysis" and res["confidence"] == 0.88
    guide = res["retro_analysis_guide"]
    assert guide["forward_reaction"] == "Esterification"
    assert guide["bond_label"] == "ester C(=O)-O"
    assert guide["next_steps"] and "validate_reaction" in guide["next_steps"][0]
    # the acid chloride and the anhydride routes are offered as alternatives
    alt = [a["precursors"] for a in res["alternatives"]]
    assert ["CC(=O)Cl", "O=C(O)c1ccccc1O"] in alt
    assert ["CC(=O)OC(C)=O", "O=C(O)c1ccccc1O"] in alt


def test_atom_order_does_not_matter(aspirin):
    assert break_bond(aspirin, 3, 1)["fragments"] == break_bond(aspirin, 1, 3)["fragments"]


def test_paracetamol_amide(paracetamol):
    res = break_bond(paracetamol, 1, 3)
    assert res["fragments"] == ["CC(=O)O", "Nc1ccc(O)cc1"]
    assert res["template_id"] == "G02_amide_retro" and res["source"] == "template"


def test_ring_forming_template_breaks_an_aromatic_bond():
    res = break_bond("Cc1[nH]c2ccccc2c1C", 1, 2)
    assert res["reaction_type"] == "Fischer Indole Synthesis"
    assert res["fragments"] == ["CCC(C)=O", "NNc1ccccc1"]


def test_unexplained_bond_falls_back_to_hydrogen_capping_with_a_warning(aspirin):
    res = break_bond(aspirin, 3, 4)  # aryl-O of an aryl ester: no named reaction makes it
    assert res["source"] == "hydrogen_capping" and res["confidence"] == 0.1
    assert res["warnings"] and res["retro_analysis_guide"]["warnings"]
    assert sorted(res["fragments"]) == ["CC(=O)O", "O=C(O)c1ccccc1"]


@pytest.mark.parametrize(
    ("smiles", "i", "j", "exc_type", "code"),
    [
        ("CC(=O)Oc1ccccc1C(=O)O", 0, 99, ValidationError, "atom_index_out_of_range"),
        ("CC(=O)Oc1ccccc1C(=O)O", -1, 0, ValidationError, "atom_index_out_of_range"),
        ("CC(=O)Oc1ccccc1C(=O)O", 0, 5, ValidationError, "atoms_not_bonded"),
        ("CC(=O)Oc1ccccc1C(=O)O", 1, "3", ValidationError, "invalid_atom_index"),
        ("C1CC(", 0, 1, ChemistryError, "invalid_smiles"),
        ("", 0, 1, ChemistryError, "invalid_smiles"),
        ("c1ccccc1", 0, 1, ChemistryError, "aromatic_bond"),
    ],
)
def test_bad_input_raises_with_code_and_value(smiles, i, j, exc_type, code):
    with pytest.raises(exc_type) as exc:
        break_bond(smiles, i, j)
    assert exc.value.code == code
    assert exc.value.to_dict()["code"] == code


def test_execute_disconnection_has_the_explore_shape(paracetamol):
    res = execute_disconnection(paracetamol, (1, 3))
    assert set(res) >= {"bond_idx", "atoms", "bond_type", "heuristic_score", "alternatives", "smart_capping"}
    assert res["bond_idx"] == 2 and res["atoms"] == [1, 3] and res["bond_type"] == "SINGLE"
    first = res["alternatives"][0]
    assert first["template_id"] == "G02_amide_retro"
    assert first["template"] == "Amide Bond Formation (Retro, ester amide)"
    assert first["precursors"] == ["CC(=O)O", "Nc1ccc(O)cc1"]
    assert "incompatible_with" in first
    assert res["smart_capping"][0]["reaction_type"] == "Amide bond formation"
    only = execute_disconnection(paracetamol, 2, template_id="G01")
    assert [a["template_id"] for a in only["alternatives"]] == ["G01_amide_acid_chloride_retro"]


def test_execute_disconnection_reports_incompatible_groups():
    # a Grignard onto the ketone while a free alcohol sits elsewhere in the molecule
    res = execute_disconnection("OCCc1ccc(C(C)(C)O)cc1", (7, 8))
    grignard = [a for a in res["alternatives"] if a["template_id"] == "G40_grignard_ketone_retro"]
    assert grignard and "alcohol" in grignard[0]["incompatible_with"]


def test_execute_fgi():
    res = execute_fgi("O=Cc1ccccc1")
    swern = [o for o in res["options"] if o["template_id"] == "G57_swern_oxidation_retro"]
    assert swern and swern[0]["precursors"] == ["OCc1ccccc1"]
    one = execute_fgi("O=Cc1ccccc1", fgi_idx=0)
    assert {o["fgi_idx"] for o in one["options"]} == {0}
    with pytest.raises(ValidationError) as exc:
        execute_fgi("O=Cc1ccccc1", fgi_idx=99)
    assert exc.value.code == "fgi_index_out_of_range"


def test_execute_operations_breaks_two_amides():
    res = execute_operations("CC(=O)NCCNC(=O)c1ccccc1", [{"atoms": [1, 3]}, {"atoms": [7, 6], "cap_i": "Cl"}])
    assert sorted(res["fragments"]) == ["CC(=O)O", "NCCN", "O=C(Cl)c1ccccc1"]
    assert res["operations"][0]["rule"] == "Amide bond formation"
    with pytest.raises(ValidationError):
        execute_operations("CCO", [])
    with pytest.raises(ValidationError):
        execute_operations("CCO", [{"cap_i": "H"}])


def test_preview_disconnections_for_imatinib():
    rows = preview_disconnections(IMATINIB, max_proposals=3)
    assert len(rows) == 3
    assert rows[0]["chemical_label"] == "amide C(=O)-N"
    assert rows[0]["precursors"] == ["CN1CCN(Cc2ccc(C(=O)O)cc2)CC1", "Cc1ccc(N)cc1Nc1nccc(-c2cccnc2)n1"]
    prios = [r["strategic_priority"] for r in rows]
    assert prios == sorted(prios, reverse=True)
    with pytest.raises(ValidationError):
        preview_disconnections(IMATINIB, max_proposals=0)


def test_try_retro_template(paracetamol):
    res = try_retro_template(paracetamol, "G02")
    assert res["success"] and res["outcomes"][0]["precursors"] == ["CC(=O)O", "Nc1ccc(O)cc1"]
    assert res["outcomes"][0]["bonds_broken"] == [[1, 3]]
    miss = try_retro_template("CCO", "Suzuki Coupling")
    assert not miss["success"] and miss["message"]
    with pytest.raises(ChemistryError):
        try_retro_template("CCO", "no such reaction")


def test_resolve_template_ids_is_reexported():
    assert resolve_template_ids("G31") == ["G31_suzuki_retro"]


def test_atom_mapped_input_gives_unmapped_output():
    res = break_bond("[CH3:1][C:2](=[O:3])[NH:4]c1ccccc1", 1, 3)
    assert res["reaction_smiles"] == "CC(=O)O.Nc1ccccc1>>CC(=O)Nc1ccccc1"


def test_suzuki_orientation_avoids_2_pyridyl_boronic_acid():
    res = break_bond("Cc1ccc(-c2ccccn2)cc1", 4, 5)
    assert res["reaction_type"] == "Suzuki Coupling"
    assert res["fragments"] == ["Brc1ccccn1", "Cc1ccc(B(O)O)cc1"]
    flipped = [a for a in res["alternatives"] if a["precursors"] == ["Cc1ccc(Br)cc1", "OB(O)c1ccccn1"]]
    assert flipped and "protodeboronate" in flipped[0]["notes"][0]

"""validate_reaction / repair_reaction: verdicts, issues, byproducts, maps and reagents, bad input."""

from __future__ import annotations

import pytest

from molx_agent.chem import repair_reaction, validate_reaction
from molx_agent.chem.reaction_validation import MAX_REPAIR_RETRIES, parse_reaction
from molx_agent.errors import ChemistryError, ValidationError

PARACETAMOL_RXN = "CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"
MAPPED_BOC = (
    "[CH3:1][C:2]([CH3:3])([CH3:4])[O:5][C:6](=[O:7])[O:8][C:9](=[O:10])[O:11][C:12]([CH3:13])([CH3:14])[CH3:15]"
    ".[NH2:16][CH2:17][c:18]1[cH:19][cH:20][cH:21][cH:22][cH:23]1"
    ">CCN(CC)CC>"
    "[CH3:1][C:2]([CH3:3])([CH3:4])[O:5][C:6](=[O:7])[NH:16][CH2:17][c:18]1[cH:19][cH:20][cH:21][cH:22][cH:23]1"
)


def test_paracetamol_acetylation_is_valid_with_hcl():
    res = validate_reaction(PARACETAMOL_RXN)
    assert {"is_valid", "verdict", "issues", "byproducts", "atom_balance", "feasibility_assessment"} <= set(res)
    assert res["is_valid"] and res["status"] == "valid" and res["issues"] == []
    assert res["verdict"].startswith("valid") and "HCl" in res["verdict"]
    assert res["byproducts"] == [{"name": "HCl", "smiles": "Cl", "count": 1}]
    assert res["atom_balance"]["balanced"]


def test_atom_maps_and_reagents_are_accepted():
    res = validate_reaction(MAPPED_BOC)
    assert res["is_valid"]
    assert res["reagents"] == ["CCN(CC)CC"]
    assert res["feasibility_assessment"]["steps"]["mcs_alignment"]["source"] == "atom_maps"
    names = {b["name"] for b in res["byproducts"]}
    assert {"CO2", "tBuOH"} <= names or {"isobutylene", "CO2"} <= names


def test_invalid_reaction_reports_error_issues():
    res = validate_reaction("c1ccccc1O>>Cc1ccccc1O")
    assert not res["is_valid"] and res["status"] == "invalid"
    codes = {i["code"] for i in res["issues"]}
    assert "skeleton_imbalance" in codes
    assert all({"code", "message", "severity"} <= set(i) for i in res["issues"])
    assert res["verdict"].startswith("invalid")


def test_no_change_is_invalid():
    res = validate_reaction("CCO.CC(=O)O>>CCO")
    assert "no_change" in {i["code"] for i in res["issues"]} and not res["is_valid"]


def test_reaction_class_selects_tier1_losses():
    rxn = "CC(C)(C)OC(=O)NCc1ccccc1>>NCc1ccccc1"
    assert not validate_reaction(rxn)["atom_balance"]["balanced"]
    with_class = validate_reaction(rxn, "boc_deprotection")
    assert with_class["atom_balance"]["balanced"] and with_class["reaction_category"] == "boc_deprotection"


def test_reagent_that_supplies_atoms_is_flagged():
    res = validate_reaction("Oc1ccccc1>CI>COc1ccccc1")
    assert res["is_valid"]
    assert "reagent_atoms_incorporated" in {i["code"] for i in res["issues"]}


@pytest.mark.parametrize(
    ("text", "code"),
    [("", "empty_input"), ("CCO", "invalid_reaction"), ("CC>>C>>C", "invalid_reaction"),
     (">>CCO", "empty_reactants"), ("CCO>>", "empty_products")],
)
def test_bad_reaction_strings(text, code):
    with pytest.raises(ValidationError) as exc:
        validate_reaction(text)
    assert exc.value.code == code


def test_bad_molecule_names_the_offender():
    with pytest.raises(ChemistryError) as exc:
        parse_reaction("CC(=O)Cl.c1cccc1N>>CC(=O)Nc1ccccc1")
    assert exc.value.code == "invalid_smiles" and exc.value.value == "c1cccc1N"


def test_repair_adds_missing_methylating_agent():
    res = repair_reaction("Oc1ccccc1>>COc1ccccc1", ["skeleton_imbalance"])
    assert res["is_valid"] and res["repaired_smiles"]
    assert res["repaired_precursors"] and "CI" in res["repaired_precursors"]
    assert res["changes_made"] and res["attempts"] <= MAX_REPAIR_RETRIES
    assert res["original_issues"] == ["skeleton_imbalance"]


def test_repair_declares_byproducts_of_a_valid_reaction():
    res = repair_reaction(PARACETAMOL_RXN)
    assert res["repaired_smiles"].endswith(">>CC(=O)Nc1ccc(O)cc1.Cl")
    assert res["validation"]["is_valid"]


def test_repair_gives_up_within_the_retry_budget():
    res = repair_reaction("CCCCCCCCCC(=O)O.NCCCCCCCN>>O=C(O)c1ccc2ccccc2c1", [{"code": "scaffold_not_aligned", "message": "x"}])
    assert res["repaired_smiles"] is None and not res["is_valid"]
    assert res["attempts"] <= MAX_REPAIR_RETRIES
    assert res["repair_actions"]


def test_reagent_like_reactants_get_a_warning_but_h2_and_spectators_do_not():
    res = validate_reaction("CC(=O)O.CCN(CC)CC.Nc1ccccc1>>CC(=O)Nc1ccccc1")
    assert res["is_valid"]
    flagged = [i for i in res["issues"] if i["code"] == "precursor_not_incorporated"]
    assert len(flagged) == 1 and "CCN(CC)CC" in flagged[0]["message"]
    assert res["atom_balance"]["adjusted_deficit"] == {"C": 6, "N": 1}  # the base's atoms, reported, not hidden
    assert validate_reaction("C=Cc1ccccc1.[H][H]>>CCc1ccccc1")["issues"] == []
    spectator = validate_reaction("CC(=O)O.[Na+].[OH-]>>CC(=O)[O-].[Na+]")
    assert [i["message"] for i in spectator["issues"] if "[Na+]" in i["message"]] == []


@pytest.mark.parametrize(("value", "code"), [(None, "empty_input"), ("   ", "empty_input"), (12, "invalid_reaction"),
                                              (["CC>>CC"], "invalid_reaction")])
def test_non_string_or_blank_reactions(value, code):
    with pytest.raises(ValidationError) as exc:
        validate_reaction(value)
    assert exc.value.code == code and exc.value.value == value


def test_dehydrogenative_cross_coupling_is_flagged():
    """Acetic acid + benzoic acid -> aspirin balances only by losing H2 (aryl C-H + O-H): a chemist wants a caution."""
    res = validate_reaction("CC(=O)O.OC(=O)c1ccccc1>>CC(=O)Oc1ccccc1C(=O)O")
    assert res["status"] == "valid_with_warnings"
    assert "dehydrogenative_coupling" in [i["code"] for i in res["issues"]]
    assert "dehydrogenative coupling" in res["verdict"]
    # an oxidation of one molecule also loses H2, and an acylation loses HCl: neither is flagged
    for rxn in ("OCc1ccccc1>>O=Cc1ccccc1", "CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"):
        assert "dehydrogenative_coupling" not in [i["code"] for i in validate_reaction(rxn)["issues"]]

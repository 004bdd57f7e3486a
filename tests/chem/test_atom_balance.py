"""M5 atom balance: two tiers, one-directional gates, continuous balance_score, seed references."""

from __future__ import annotations

import pytest

from molx_agent.chem import check_atom_balance
from molx_agent.chem.byproducts import BYPRODUCTS, CATEGORY_LOSSES, GENERIC_LOSSES, normalize_category
from molx_agent.errors import ChemistryError, ValidationError

SEED_FIELDS = {
    "balanced", "balance_score", "precursor_atoms", "product_atoms", "excess", "deficit",
    "adjusted_excess", "adjusted_deficit", "severe_imbalance", "skeleton_imbalance", "note",
}
SUZUKI = (["Brc1ccccc1", "OB(O)c1ccccc1"], "c1ccc(-c2ccccc2)cc1")
STILLE = (["Brc1ccccc1", "CCCC[Sn](CCCC)(CCCC)c1ccccc1"], "c1ccc(-c2ccccc2)cc1")
WITTIG = (["C(=P(c1ccccc1)(c1ccccc1)c1ccccc1)c1ccccc1", "O=Cc1ccccc1"], "C(=Cc1ccccc1)c1ccccc1")


def test_tables():
    assert len(CATEGORY_LOSSES) == 19
    assert len(BYPRODUCTS) >= 18
    assert set(GENERIC_LOSSES) == {"H2O", "HCl", "HBr", "HI", "HF", "H2"}
    for name in GENERIC_LOSSES:  # tier 2 never explains skeleton atoms
        bp = next(b for b in BYPRODUCTS if b.name == name)
        assert not {"C", "N", "S"} & set(bp.formula)


def test_seed_fields_and_amide_with_hcl():
    res = check_atom_balance(["CC(=O)Cl", "Nc1ccc(O)cc1"], "CC(=O)Nc1ccc(O)cc1")
    assert SEED_FIELDS <= set(res)
    assert res["balanced"] and res["balance_score"] == 1.0
    assert res["deficit"] == {"Cl": 1, "H": 1} and res["adjusted_deficit"] == {}
    assert res["explained_losses"][0]["name"] == "HCl" and res["explained_losses"][0]["tier"] == 2
    assert res["note"] == "balanced after accounting for small-molecule loss"


def test_suzuki_reference_score():
    res = check_atom_balance(*SUZUKI)
    assert res["balance_score"] == pytest.approx(0.81, abs=0.1)
    assert not res["skeleton_imbalance"] and not res["severe_imbalance"]
    assert check_atom_balance(*SUZUKI, reaction_category="suzuki")["balanced"]


def test_stille_reference_score():
    res = check_atom_balance(*STILLE)
    assert res["balance_score"] == pytest.approx(0.5, abs=0.1)
    assert res["adjusted_deficit"]["C"] == 12 and not res["skeleton_imbalance"]  # precursor-side C is normal
    assert check_atom_balance(*STILLE, reaction_category="stille_coupling")["balanced"]


def test_wittig_precursor_side_excess_is_soft_and_tier1_explains_ph3po():
    res = check_atom_balance(*WITTIG)
    assert not res["skeleton_imbalance"] and not res["severe_imbalance"]
    assert 0.0 < res["balance_score"] < 1.0
    assert res["adjusted_deficit"] == {"C": 18, "P": 1}
    tier1 = check_atom_balance(*WITTIG, reaction_category="wittig")
    assert tier1["balanced"] and tier1["explained_losses"][0] == {
        "name": "Ph3PO", "count": 1, "tier": 1, "smiles": "O=P(c1ccccc1)(c1ccccc1)c1ccccc1"}


def test_product_side_carbon_is_skeleton_imbalance():
    res = check_atom_balance(["c1ccccc1"], "Cc1ccccc1")
    assert res["skeleton_imbalance"] and not res["severe_imbalance"]
    assert res["adjusted_excess"] == {"C": 1}


def test_more_than_four_extra_atoms_is_severe():
    res = check_atom_balance(["CCO"], "CCOC(=O)C(F)(F)F")
    assert res["severe_imbalance"] and res["skeleton_imbalance"]
    assert res["balance_score"] < 0.5


def test_generic_water_on_product_side_is_not_a_gate():
    res = check_atom_balance(["N#Cc1ccccc1"], "NC(=O)c1ccccc1")
    assert res["balanced"] and res["explained_gains"][0]["name"] == "H2O"


def test_generic_losses_never_explain_carbon():
    res = check_atom_balance(["CC(C)(C)OC(=O)NCc1ccccc1"], "NCc1ccccc1")
    assert res["adjusted_deficit"] == {"C": 5}
    assert check_atom_balance(["CC(C)(C)OC(=O)NCc1ccccc1"], "NCc1ccccc1", "boc_deprotection")["balanced"]


def test_category_normalisation():
    assert normalize_category("Suzuki coupling") == "suzuki"
    assert normalize_category(6) == "deprotection"
    assert normalize_category("G01_amide_acid_chloride") is None or normalize_category("amide") == "amide_coupling"
    assert normalize_category("unheard-of reaction") is None


def test_bad_input():
    with pytest.raises(ValidationError) as exc:
        check_atom_balance([], "CCO")
    assert exc.value.code == "empty_input"
    with pytest.raises(ChemistryError) as exc:
        check_atom_balance(["CC(C"], "CCO")
    assert exc.value.code == "invalid_smiles" and exc.value.value == "CC(C"


@pytest.mark.parametrize(("precursors", "product", "code"),
                         [(["CC"], None, "empty_input"), (None, "CC", "empty_input"), (["CC"], "  ", "empty_input"),
                          (42, "CC", "invalid_input")])
def test_missing_or_mistyped_sides_are_validation_errors(precursors, product, code):
    with pytest.raises(ValidationError) as exc:
        check_atom_balance(precursors, product)
    assert exc.value.code == code

"""M5 forward validation: weighted steps, hard gates, feasibility bands, template step."""

from __future__ import annotations

import pytest

from molx_agent.chem import validate_forward
from molx_agent.chem.forward_validate import HARD_GATES, STEP_WEIGHTS, feasibility_band
from molx_agent.errors import ChemistryError, ValidationError

AMIDE = (["CC(=O)O", "Nc1ccc(O)cc1"], "CC(=O)Nc1ccc(O)cc1")


def test_weights_and_gates_follow_the_seed():
    assert STEP_WEIGHTS == {"atom_balance": 0.25, "template_forward": 0.25, "mcs_alignment": 0.20,
                            "bond_topology": 0.15, "fg_compatibility": 0.15}
    assert HARD_GATES == ("severe_imbalance", "skeleton_imbalance", "scaffold_not_aligned",
                          "bond_topology_violation", "forbidden_fg")


@pytest.mark.parametrize(("score", "band"), [(0.71, "high"), (0.7, "medium"), (0.5, "medium"), (0.49, "low")])
def test_bands(score, band):
    assert feasibility_band(score) == band


def test_valid_amide_coupling_passes():
    res = validate_forward(*AMIDE, search_templates=True)
    assert res["ok"] is True and res["pass"] is True and res["hard_fail_reasons"] is None
    assert res["feasibility"] == "high"
    assert set(res["steps"]) == set(STEP_WEIGHTS)
    assert res["steps"]["mcs_alignment"]["aligned"]
    assert res["steps"]["bond_topology"]["n_formed"] == 1
    assert res["steps"]["template_forward"]["reproduced"] is True  # found in the named library
    assert res["steps"]["template_forward"]["template_id"] == "G02_amide_retro"
    quick = validate_forward(*AMIDE)
    assert quick["steps"]["template_forward"] == {"score": 0.5, "checked": False, "detail": "no template given",
                                                  "weight": 0.25}
    assert quick["feasibility_score"] < res["feasibility_score"]


def test_template_step_reproduces_precursors():
    res = validate_forward(*AMIDE, template_id="G02_amide_retro")
    assert res["steps"]["template_forward"]["score"] == 1.0
    assert res["steps"]["template_forward"]["reproduced"] is True
    wrong = validate_forward(["CCO", "Nc1ccc(O)cc1"], "CCNc1ccc(O)cc1", template_id="G02_amide_retro")
    assert wrong["steps"]["template_forward"]["score"] < 0.5


def test_extra_carbon_fails_skeleton_gate():
    res = validate_forward(["CC(=O)O", "Nc1ccc(O)cc1"], "CC(=O)Nc1ccc(OC)cc1")
    assert "skeleton_imbalance" in res["hard_fail_reasons"] and res["ok"] is False
    assert res["steps"]["atom_balance"]["score"] == 0.0


def test_unrelated_product_is_not_aligned():
    res = validate_forward(["CCCCCCCCCC(=O)O", "NCCCCCCCN"], "O=C(O)c1ccc2ccccc2c1")
    assert "scaffold_not_aligned" in res["hard_fail_reasons"]


def test_carbon_from_a_boc_group_is_a_topology_violation():
    # Boc removal cannot also put a methyl on the ring: the atoms exist, the bonds do not.
    res = validate_forward(["CC(C)(C)OC(=O)NCc1ccccc1"], "NCc1ccc(C)cc1")
    assert res["atom_balance"]["skeleton_imbalance"] is False
    assert "bond_topology_violation" in res["hard_fail_reasons"]


def test_forbidden_group_for_grignard():
    res = validate_forward(["CC(=O)c1ccc(C(=O)O)cc1", "C[Mg]Br"], "CC(C)(O)c1ccc(C(=O)O)cc1", reaction_type="grignard")
    assert "forbidden_fg" in res["hard_fail_reasons"]
    assert "carboxylic_acid" in res["steps"]["fg_compatibility"]["forbidden_groups"]


def test_bad_input():
    with pytest.raises(ValidationError):
        validate_forward([], "CCO")
    with pytest.raises(ValidationError):
        validate_forward(["CCO"], "")
    with pytest.raises(ChemistryError) as exc:
        validate_forward(["CCO"], "C1CC")
    assert exc.value.value == "C1CC"

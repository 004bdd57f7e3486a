"""M6 CS score: seed weights, classes, reference molecules, terminal rules, progress scores."""

from __future__ import annotations

import pytest

from molx_agent.chem import compute_cs_score
from molx_agent.chem.cs_score import (
    WEIGHTS,
    batch_score_progress,
    check_terminal,
    classify_complexity,
    score_progress,
)

REFERENCES = {
    "atorvastatin": ("CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)O", 4.6),
    "cholesterol": ("C[C@H](CCCC(C)C)[C@H]1CC[C@@H]2[C@@]1(CC[C@H]3[C@H]2CC=C4[C@@]3(CC[C@@H](C4)O)C)C", 6.2),
    "morphine": ("CN1CC[C@]23[C@@H]4[C@H]1CC5=C2C(=C(C=C5)O)O[C@H]3[C@H](C=C4)O", 6.8),
    "taxol": (
        "CC1=C2[C@@]([C@]([C@H]([C@@H]3[C@]4([C@H](OC4)C[C@@H]([C@]3(C(=O)[C@@H]2OC(=O)C)C)O)OC(=O)C)"
        "OC(=O)c5ccccc5)(C[C@@H]1OC(=O)[C@H](O)[C@@H](NC(=O)c6ccccc6)c7ccccc7)O)(C)C",
        8.2,
    ),
}


def test_seed_weights():
    assert WEIGHTS == {"size": 0.55, "ring": 0.65, "stereo": 0.55, "hetero": 0.40, "symmetry": -0.20,
                       "fg_density": 0.35}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reference_molecules_within_tolerance(name):
    smiles, expected = REFERENCES[name]
    assert compute_cs_score(smiles)["cs_score"] == pytest.approx(expected, abs=0.6)


def test_reference_ordering():
    scores = [compute_cs_score(REFERENCES[n][0])["cs_score"] for n in ("atorvastatin", "cholesterol", "morphine", "taxol")]
    assert scores == sorted(scores)


@pytest.mark.parametrize(("score", "cls"), [(0.0, "trivial"), (2.5, "trivial"), (2.51, "moderate"), (6.0, "moderate"),
                                           (6.01, "complex")])
def test_classes(score, cls):
    assert classify_complexity(score) == cls


def test_result_shape_and_terminal_rules(aspirin):
    res = compute_cs_score(aspirin)
    assert set(res["dimensions"]) == set(WEIGHTS)
    assert all(0.0 <= v <= 1.0 for v in res["dimensions"].values())
    assert res["classification"] == classify_complexity(res["cs_score"])
    small = compute_cs_score("CCOC(C)=O")  # 6 heavy atoms: terminal whatever its score
    assert small["is_terminal"] and "heavy atoms" in small["terminal_reason"]
    taxol = compute_cs_score(REFERENCES["taxol"][0])
    assert not taxol["is_terminal"] and taxol["classification"] == "complex"
    assert taxol["cs_score"] <= 8.75


def test_score_progress_and_batch(paracetamol):
    res = score_progress(["CC(=O)Cl", "Nc1ccc(O)cc1"], paracetamol)
    assert res["simplifies"] and res["delta"] > 0
    assert res["max_precursor_cs"] == max(res["precursor_cs"].values())
    batch = batch_score_progress([(["CC(=O)Cl", "Nc1ccc(O)cc1"], paracetamol), {"precursors": ["C1CC"], "product": "CCO"}])
    assert len(batch) == 2
    assert batch[0]["simplifies"] and batch[1]["error"]["code"] == "invalid_smiles"


def test_three_tier_terminal_logic(aspirin):
    assert check_terminal("CCOC(C)=O")["tier"] == 1
    assert check_terminal("CCCCCCCC(C)C")["tier"] == 2
    taxol = REFERENCES["taxol"][0]
    assert check_terminal(taxol) == {**check_terminal(taxol), "is_terminal": False, "tier": None}
    assert check_terminal("CCOC(C)=O", is_target=True)["is_terminal"] is False
    # A perfluorinated cage has nothing a named template can break and no FGI: tier 3.
    cage = check_terminal("FC12C(F)(F)C3(F)C(F)(F)C(F)(C1(F)F)C(F)(F)C(F)(C2(F)F)C3(F)F")
    assert cage["is_terminal"] and cage["tier"] == 3

"""M1: analyze_molecule and known scaffolds."""

from __future__ import annotations

import pytest

from molx_agent.chem import analyze_molecule, match_known_scaffolds
from molx_agent.chem.mol_info import classify_sa, suggested_action
from molx_agent.errors import ChemistryError


def test_aspirin_analysis_fields(aspirin):
    res = analyze_molecule(aspirin)
    for key in ("canonical_smiles", "molecular_weight", "sa_score", "cs_score", "classification", "functional_groups",
                "protecting_groups", "atom_bond_map", "formula", "sa_class", "is_terminal", "retro_guidance"):
        assert key in res
    assert res["formula"] == "C9H8O4" and res["molecular_weight"] == pytest.approx(180.16, abs=0.01)
    assert res["sa_class"] == classify_sa(res["sa_score"])
    assert {"ester", "carboxylic_acid"} <= {g["name"] for g in res["functional_groups"]}
    top = res["atom_bond_map"]["strategic_bonds"][0]
    assert sorted(top["atoms"]) == [1, 3]  # the ester C(=O)-O bond


def test_paracetamol_amide_ranks_first(paracetamol):
    top = analyze_molecule(paracetamol)["atom_bond_map"]["strategic_bonds"][0]
    assert sorted(top["atoms"]) == [1, 3]  # the amide C(=O)-N bond


def test_without_atom_bond_map():
    res = analyze_molecule("CCO", include_atom_bond_map=False)
    assert "atom_bond_map" not in res and res["is_terminal"]


@pytest.mark.parametrize("bad", ["", "C1CC", "xyz"])
def test_invalid_smiles(bad):
    with pytest.raises(ChemistryError) as exc:
        analyze_molecule(bad)
    assert exc.value.code == "invalid_smiles" and exc.value.value == bad


def test_known_scaffolds():
    names = {s["name"] for s in match_known_scaffolds("CN1CC[C@]23[C@@H]4[C@H]1CC5=C2C(=C(C=C5)O)O[C@H]3[C@H](C=C4)O")}
    assert "morphinan" in names
    names = {s["name"] for s in match_known_scaffolds("Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1")}
    assert {"piperazine", "pyrimidine", "pyridine"} <= names


@pytest.mark.parametrize(("sa", "mw", "action"), [(1.5, 200, "mark_terminal"), (3.0, 100, "mark_terminal"),
                                                  (3.0, 200, "mark_optional"), (4.2, 300, "decompose")])
def test_seed_recursion_default(sa, mw, action):
    assert suggested_action(sa, mw) == action

"""compute_properties: real RDKit numbers, Lipinski, bad input."""

from __future__ import annotations

import pytest

from molx_agent.chem.properties import compute_properties, compute_properties_batch
from molx_agent.errors import ChemistryError


def test_aspirin_properties(aspirin):
    p = compute_properties(aspirin)
    assert p["formula"] == "C9H8O4"
    assert p["molecular_weight"] == pytest.approx(180.16, abs=0.01)
    assert p["exact_mass"] == pytest.approx(180.0423, abs=1e-4)
    assert p["clogp"] == pytest.approx(1.31, abs=0.01)
    assert p["tpsa"] == pytest.approx(63.6, abs=0.01)
    assert (p["hbd"], p["hba"], p["rotatable_bonds"], p["rings"], p["aromatic_rings"], p["heavy_atoms"]) == (
        1, 3, 2, 1, 1, 13)
    assert 0 < p["qed"] < 1 and 1 <= p["sa_score"] <= 3
    assert p["lipinski"] == {**p["lipinski"], "violations": 0, "passes": True}


def test_lipinski_counts_violations():
    # cyclosporin-like big lipophilic peptide surrogate: a C40 alkane chain with many OH/NH
    big = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(O)C(O)C(O)C(O)C(O)C(O)NC(=O)C(N)C(N)C(N)CO"
    p = compute_properties(big)
    assert p["molecular_weight"] > 500 and p["clogp"] > 5
    assert p["lipinski"]["violations"] >= 2 and p["lipinski"]["passes"] is False


@pytest.mark.parametrize("bad", ["", "   ", "C1CC", "not_a_smiles", "C(C)(C)(C)(C)C"])
def test_bad_smiles_is_a_chemistry_error(bad):
    with pytest.raises(ChemistryError) as info:
        compute_properties(bad)
    assert info.value.code == "invalid_smiles"


def test_batch_keeps_bad_items_as_error_records(aspirin):
    out = compute_properties_batch([aspirin, "C1CC", "CCO"])
    assert len(out) == 3
    assert out[1]["error"]["code"] == "invalid_smiles" and out[1]["smiles"] == "C1CC"
    assert out[2]["formula"] == "C2H6O"


def test_no_negative_zero():
    assert str(compute_properties("CCO")["clogp"]) != "-0.0"


def test_sa_score_cache_matches_rdkit_reference(tmp_path):
    from rdkit import Chem
    from rdkit.Contrib.SA_Score import sascorer as ref

    from molx_agent.chem.properties import _sascorer

    ours = _sascorer()._fscores
    ref.readFragmentScores()
    reference = ref._fscores
    try:
        for smi in ("CC(=O)Oc1ccccc1C(=O)O", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
                    "C[C@]12CC[C@H]3[C@@H](CCC4=CC(=O)CC[C@@]34C)[C@@H]1CC[C@@H]2O"):
            mol = Chem.MolFromSmiles(smi)
            expected = ref.calculateScore(mol)
            ref._fscores = ours
            assert ref.calculateScore(mol) == pytest.approx(expected, abs=1e-12)
            ref._fscores = reference
    finally:
        ref._fscores = ours

"""Activity cliffs: MoleculeACE's definition, listed as pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from rdkit import Chem

from molx_agent.sar.cliffs import find_activity_cliffs, levenshtein_block


def _run(smiles, p, **kw):
    return find_activity_cliffs([Chem.MolFromSmiles(s) for s in smiles], smiles, p, **kw)


def test_similar_pair_with_100_fold_is_a_cliff_with_all_fields():
    smiles = ["CC(=O)Nc1ccc(Cl)cc1CCCCCCN", "CC(=O)Nc1ccc(Br)cc1CCCCCCN", "c1ccc2ccccc2c1"]
    res = _run(smiles, [8.0, 6.0, 7.5], ids=["a", "b", "c"], rows=[10, 11, 12])
    assert len(res.pairs) == 1
    c = res.pairs[0]
    assert (c.id_a, c.id_b, c.row_a, c.row_b) == ("a", "b", 10, 11)
    assert c.fold_change == pytest.approx(100.0)
    assert c.levenshtein == pytest.approx(1 - 2 / 26)  # "Cl" -> "Br": 2 edits over 26 characters
    assert max(c.tanimoto_ecfp4, c.tanimoto_scaffold, c.levenshtein) >= 0.9
    assert c.sali == pytest.approx(2.0 / (1 - c.tanimoto_ecfp4))
    assert list(res.cliff_mol) == [True, True, False]


def test_exactly_tenfold_or_less_is_not_a_cliff():
    smiles = ["CC(=O)Nc1ccc(Cl)cc1CCCCCCN", "CC(=O)Nc1ccc(Br)cc1CCCCCCN"]
    assert _run(smiles, [8.0, 7.0]).pairs == []
    assert _run(smiles, [8.0, 7.5]).pairs == []
    assert len(_run(smiles, [8.0, 6.99]).pairs) == 1


def test_censored_values_do_not_take_part():
    smiles = ["CC(=O)Nc1ccc(Cl)cc1CCCCCCN", "CC(=O)Nc1ccc(Br)cc1CCCCCCN"]
    res = _run(smiles, [8.0, 5.0], exact=[True, False])
    assert res.pairs == [] and res.n_compared == 1


def test_levenshtein_uses_the_smiles_as_given():
    # the same molecule written two ways is far apart as text
    sim = levenshtein_block(["OCC", "CCO"], ["OCC", "CCO"])
    assert sim[0, 0] == 1.0 and sim[0, 1] < 0.9


def test_reproduces_moleculeace_cliff_mol(shared_data):
    df = pd.read_csv(shared_data / "sar" / "moleculeace" / "CHEMBL4203_Ki.csv")
    p = 9 - np.log10(df["exp_mean [nM]"].to_numpy())
    res = _run(list(df["smiles"]), p)
    agreement = (res.cliff_mol.astype(int) == df["cliff_mol"].to_numpy()).mean()
    assert agreement >= 0.99

"""benchmarks/decoys.py: the decoy generator (deterministic, within size bounds, never a source) and its summary."""

from __future__ import annotations

import pytest
from rdkit import Chem

SOURCES = [
    ("CC(=O)Nc1ccc(OCCN2CCOCC2)cc1", "a"),
    ("COc1ccc(-c2nc3ccccc3[nH]2)cc1Cl", "a"),
    ("O=C(NCc1ccccc1)c1ccc(F)cc1N1CCCC1", "b"),
    ("CN1CCN(c2ccc(C(=O)Nc3ccccn3)cc2)CC1", "b"),
]


@pytest.fixture(scope="module")
def decoys(repo_script):
    return repo_script("benchmarks/decoys.py")


def test_decoys_are_deterministic_new_unique_and_within_bounds(decoys):
    first = decoys.make_decoys(SOURCES, 25, min_atoms=16, max_atoms=26, seed=3)
    assert first == decoys.make_decoys(SOURCES, 25, min_atoms=16, max_atoms=26, seed=3)
    assert first != decoys.make_decoys(SOURCES, 25, min_atoms=16, max_atoms=26, seed=4)
    smiles = [d["smiles"] for d in first]
    assert len(set(smiles)) == 25
    sources = {Chem.CanonSmiles(s) for s, _ in SOURCES}
    for d in first:
        mol = Chem.MolFromSmiles(d["smiles"])
        assert mol is not None and Chem.MolToSmiles(mol) == d["smiles"]
        assert 16 <= mol.GetNumHeavyAtoms() == d["heavy_atoms"] <= 26
        assert d["smiles"] not in sources and d["source"] in sources and 1 <= len(d["edits"]) <= 3
    # a molecule to avoid is never produced, and an impossible request fails clearly instead of looping
    avoid = set(smiles[:5])
    assert not avoid & {d["smiles"] for d in decoys.make_decoys(SOURCES, 25, min_atoms=16, max_atoms=26, seed=3,
                                                                    avoid=avoid)}
    with pytest.raises(ValueError, match="decoys after"):
        decoys.make_decoys(SOURCES, 5, min_atoms=60, max_atoms=70, seed=0, max_tries=200)


def test_summary_counts_goals_and_bands(decoys):
    def rec(heavy, tier, bloom, accepted):
        return {"smiles": f"C{heavy}{tier}", "heavy_atoms": heavy, "rings": 1, "stereocentres": 0, "tier": tier,
                "bloom": bloom, "accepted": accepted, "leaf_cost": 1.0 if accepted else None}

    records = [rec(16, "probable", True, True), rec(20, "probable", True, False), rec(28, "unavailable", True, False)]
    records += [rec(24, "unavailable", False, False)] * 47
    s = decoys.summarise(records)
    assert (s["n_decoys"], s["n_bloom_hits"], s["n_probable"], s["n_accepted"], s["pct_accepted"]) == (50, 3, 2, 1, 2.0)
    assert s["bloom_hits_by_tier"] == {"probable": 2, "unavailable": 1}
    assert s["goals"] == {"none_verified": True, "every_bloom_hit_probable": False,
                          "every_bloom_hit_within_zinc_cap_probable": True, "at_most_2pct_accepted": True}
    assert s["n_bloom_hits_over_zinc_cap"] == 1
    assert s["by_heavy_atoms"]["15-18"] == {"n": 1, "bloom_hits": 1, "probable": 1, "accepted": 1, "pct_accepted": 100.0}
    assert s["by_heavy_atoms"]["23-26"]["n"] == 47 and [a["heavy_atoms"] for a in s["accepted"]] == [16]

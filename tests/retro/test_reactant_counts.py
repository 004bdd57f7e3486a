"""How often each precursor is a reactant in the library's reactions (``retro.reactant_counts``), and its four ranker
features in the single-step model."""

from __future__ import annotations

import gzip
import math
from collections import Counter

import numpy as np
import pytest

from molx_agent.errors import DataError
from molx_agent.retro.policy import load_policy
from molx_agent.retro.ranker import FEATURES, RANKER_FILE, CandidateEvidence, candidate_features, read_ranker
from molx_agent.retro.reactant_counts import (
    REACTANT_COUNT_FEATURES,
    REACTANT_COUNTS_FILE,
    ReactantCounts,
    load_reactant_counts,
    reactant_count_features,
    read_reactant_counts,
)
from molx_agent.retro.single_step import POLICY_ENV, TemplateKNNModel
from molx_agent.retro.templates_db import DATA_DIR, load_template_library

COLS = [FEATURES.index(name) for name in REACTANT_COUNT_FEATURES]


def test_features_are_min_max_mean_log_counts_and_unseen_precursors():
    assert reactant_count_features(()) == (0.0, 0.0, 0.0, 0.0)
    lo, hi, mean, unseen = reactant_count_features((0, 9, 99))
    assert (lo, hi, unseen) == (0.0, math.log(100), 1.0)
    assert mean == pytest.approx((math.log(10) + math.log(100)) / 3)
    cand = CandidateEvidence(reactants=("CI", "Oc1ccccc1"), reactant_counts=(694, 0))
    f = candidate_features(cand, product_heavy_atoms=8, product_rings=1, template_counts=np.zeros(1),
                           template_classes=[None], n_neighbours=100)
    assert len(f) == len(FEATURES)
    assert list(f[COLS]) == pytest.approx([0.0, math.log(695), math.log(695) / 2, 1.0])


def test_build_counts_each_molecule_once_per_reaction_canonically_and_reproducibly(tmp_path):
    from scripts.build_reactant_counts import count_reactants, table_bytes

    counts, bad = count_reactants(["CI.Oc1ccccc1", "IC.c1ccc(O)cc1", "CI.CI.NCc1ccccc1", "not a smiles"])
    assert bad == 1
    assert counts == Counter({"CI": 3, "Oc1ccccc1": 2, "NCc1ccccc1": 1})
    blob = table_bytes(counts, "# test table")
    assert blob == table_bytes(Counter(dict(reversed(list(counts.items())))), "# test table")  # order-free, mtime 0
    path = tmp_path / "counts.tsv.gz"
    path.write_bytes(blob)
    table = read_reactant_counts(path)
    assert table.counts == dict(counts) and table.meta == "test table"
    assert table.count("CI") == 3 and table.count("CBr") == 0
    assert gzip.decompress(blob).decode().splitlines()[1:] == ["3\tCI", "2\tOc1ccccc1", "1\tNCc1ccccc1"]


def test_read_rejects_an_unreadable_table(tmp_path):
    bad = tmp_path / "bad.tsv.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(DataError, match="unreadable"):
        read_reactant_counts(bad)
    broken = tmp_path / "broken.tsv.gz"
    broken.write_bytes(gzip.compress(b"12 CI without a tab\n"))
    with pytest.raises(DataError):
        read_reactant_counts(broken)


def test_packaged_table_counts_the_libraries_common_reagents():
    path = DATA_DIR / REACTANT_COUNTS_FILE
    assert path.is_file(), "run scripts/build_reactant_counts.py"
    table = load_reactant_counts()
    assert table is not None and len(table) > 40_000
    assert "USPTO-50K training" in table.meta and "PaRoutes" in table.meta
    # methyl iodide and Boc anhydride are among the most used reactants; a made-up molecule is unseen
    assert table.count("CI") > 300 and table.count("CC(C)(C)OC(=O)OC(=O)OC(C)(C)C") > 300
    assert table.count("CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(F)(F)I") == 0


@pytest.fixture(scope="module")
def counted_model() -> TemplateKNNModel:
    table = ReactantCounts({"CC(=O)OC(C)=O": 50, "Nc1ccc(O)cc1": 7})
    return TemplateKNNModel(load_template_library(), named_templates=False, policy=None, reactant_counts=table)


def test_every_candidate_gets_its_precursors_counts_as_features(counted_model):
    product = "CC(=O)Nc1ccc(O)cc1"
    _, _, cands, feats = counted_model.candidates(product)
    assert len(cands) > 3
    for cand, row in zip(cands, feats, strict=True):
        expected = tuple(counted_model.reactant_counts.count(s) for s in cand.reactants)
        assert cand.reactant_counts == expected
        assert list(row[COLS]) == pytest.approx(list(reactant_count_features(expected)))
    anhydride = next(c for c in cands if c.reactants == ("CC(=O)OC(C)=O", "Nc1ccc(O)cc1"))
    assert anhydride.reactant_counts == (50, 7)
    preds = counted_model.predict(product, top_k=5)
    assert all(p.evidence["reactant_counts"] == [counted_model.reactant_counts.count(s) for s in p.reactants]
               for p in preds)


def test_without_a_table_the_features_are_zero_and_the_search_view_has_none():
    plain = TemplateKNNModel(load_template_library(), named_templates=False, policy=None)
    assert plain.reactant_counts is None
    _, _, cands, feats = plain.candidates("CC(=O)Nc1ccc(O)cc1")
    assert cands and np.all(feats[:, COLS] == 0.0)
    assert all("reactant_counts" not in p.evidence for p in plain.predict("CC(=O)Nc1ccc(O)cc1", top_k=5))
    ensemble = TemplateKNNModel(policy=load_policy())
    assert ensemble.reactant_counts is load_reactant_counts() and ensemble.reactant_counts is not None
    if not ensemble.search_policy:
        assert ensemble.for_search().reactant_counts is None
    with pytest.raises(ValueError, match="reactant_counts"):
        TemplateKNNModel(load_template_library(), named_templates=False, policy=None, reactant_counts="yes")


def test_the_model_without_policy_and_its_ranker_ignore_the_features(monkeypatch):
    assert np.all(read_ranker(DATA_DIR / RANKER_FILE).weights[COLS] == 0.0)
    monkeypatch.setenv(POLICY_ENV, "off")
    assert TemplateKNNModel().reactant_counts is None


def test_the_packaged_ensemble_ranker_prefers_precursors_chemists_use():
    ensemble = TemplateKNNModel(policy=load_policy())
    w = ensemble.ranker.weights
    assert np.any(w[COLS] != 0.0)
    # for one precursor set, more uses of its precursors (all three log features up, none unseen) raise the score
    assert w[COLS[:3]].sum() > 0.0 and w[COLS[3]] <= 0.0


def test_leave_one_out_training_queries_do_not_count_their_own_reactions(counted_model, monkeypatch):
    import scripts.train_single_step_ranker as trainer

    product = "CC(=O)Nc1ccc(O)cc1"
    monkeypatch.setattr(trainer, "_MODEL", counted_model)
    monkeypatch.setattr(trainer, "_SAME_PRODUCT", {"k": np.zeros(0, dtype=np.int64)})
    # the query's own reaction (and 49 more left out with it) used the anhydride
    monkeypatch.setattr(trainer, "_LEFT_OUT_REACTANTS", {"k": Counter({"CC(=O)OC(C)=O": 50, "Nc1ccc(O)cc1": 1})})
    truth = ("CC(=O)OC(C)=O", "Nc1ccc(O)cc1")
    feats, label = trainer._collect((product, truth, "k"))
    assert label >= 0
    assert list(feats[label, COLS]) == pytest.approx(list(reactant_count_features((0, 6))))
    _, _, cands, full = counted_model.candidates(product)
    row = next(i for i, c in enumerate(cands) if c.reactants == truth)
    assert list(full[row, COLS]) == pytest.approx(list(reactant_count_features((50, 7))))

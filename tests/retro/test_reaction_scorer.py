"""The learned reaction scorer (``retro.reaction_scorer``) and its ranker feature in the single-step model."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rdkit import Chem

from molx_agent.errors import DataError
from molx_agent.io_utils import read_npz_with_meta
from molx_agent.retro.policy import load_policy
from molx_agent.retro.ranker import FEATURES, RANKER_FILE, read_ranker
from molx_agent.retro.reaction_scorer import (
    REACTION_FINGERPRINT,
    SCORER_FILE,
    ReactionScorer,
    count_fingerprint,
    count_fingerprint_and_words,
    difference_features,
    load_reaction_scorer,
    read_reaction_scorer,
    scorer_check_data,
)
from molx_agent.retro.single_step import POLICY_ENV, TemplateKNNModel
from molx_agent.retro.templates_db import DATA_DIR, fingerprint_words_of_mol, load_template_library

COL = FEATURES.index("reaction_score")


def toy_scorer(hidden: int = 6, seed: int = 0) -> ReactionScorer:
    rng = np.random.default_rng(seed)
    size = REACTION_FINGERPRINT["fp_size"]
    return ReactionScorer(
        w_prod=rng.normal(size=(size, hidden)).astype(np.float32),
        w_diff=rng.normal(size=(size, hidden)).astype(np.float32),
        b1=rng.normal(size=hidden).astype(np.float32),
        w2=rng.normal(size=hidden).astype(np.float32),
        b2=0.5,
    )


def fp(smiles: str):
    return count_fingerprint(Chem.MolFromSmiles(smiles))


def dense_reference(scorer: ReactionScorer, product, diffs) -> np.ndarray:
    size = REACTION_FINGERPRINT["fp_size"]
    out = []
    for idx, val in diffs:
        d = np.zeros(size, dtype=np.float32)
        d[idx] = val
        h = scorer.w_prod[product[0]].sum(axis=0) + d @ scorer.w_diff + scorer.b1
        out.append(float(np.maximum(h, 0) @ scorer.w2 + scorer.b2))
    return np.array(out)


def test_difference_fingerprint_counts_formed_minus_consumed_environments():
    amide = fp("CC(=O)NC")
    diff = difference_features(amide, [fp("CC(=O)O"), fp("CN")])
    assert (diff[1] > 0).any() and (diff[1] < 0).any()  # the amide formed, the acid's OH (and more) consumed
    assert np.all(np.abs(diff[1]) <= REACTION_FINGERPRINT["clip"]) and np.all(diff[1] != 0)
    assert list(diff[0]) == sorted(diff[0])
    same = difference_features(amide, [amide])
    assert len(same[0]) == 0
    # a larger leaving group consumes more environments: the difference sees which one a candidate brings
    chloride = difference_features(amide, [fp("CC(=O)Cl"), fp("CN")])
    assert not np.array_equal(np.sort(chloride[0]), np.sort(diff[0])) or not np.array_equal(chloride[1], diff[1])


@pytest.mark.parametrize("smiles", [
    "C", "CC(=O)NC", "O=C(O)c1ccccc1Cl", "C[C@H](N)C(=O)O", "[Na+].[O-]C(=O)C", "OB(O)c1ccc2[nH]ccc2c1",
    "CC(C)(C)OC(=O)N1CCC[C@H]1C(=O)N[C@@H](Cc1ccccc1)C(=O)OC", "c1ccc2c(c1)ccc1ccccc12", "[2H]C([2H])([2H])I",
])
def test_one_morgan_pass_gives_the_library_bits_and_the_counts(smiles):
    mol = Chem.MolFromSmiles(smiles)
    words, counts = count_fingerprint_and_words(mol)
    assert np.array_equal(words, fingerprint_words_of_mol(mol))
    assert np.array_equal(counts[0], count_fingerprint(mol)[0]) and np.array_equal(counts[1], count_fingerprint(mol)[1])
    assert words.dtype == np.uint64 and counts[0].dtype == np.int64 and counts[1].dtype == np.float32


def test_sparse_inference_equals_the_dense_network_even_for_an_empty_difference():
    scorer = toy_scorer()
    product = fp("CC(=O)NC")
    diffs = [difference_features(product, [fp("CC(=O)O"), fp("CN")]),
             difference_features(product, [product]),  # no difference at all
             difference_features(product, [fp("CC(=O)Cl"), fp("CN")])]
    assert len(diffs[1][0]) == 0
    assert np.allclose(scorer.scores(product, diffs), dense_reference(scorer, product, diffs), atol=1e-4)
    assert scorer.scores(product, []).shape == (0,)


def test_packaged_scorer_reproduces_the_trainers_scores():
    path = DATA_DIR / SCORER_FILE
    assert path.is_file(), "run scripts/train_reaction_scorer.py"
    assert path.stat().st_size < 4_000_000
    scorer = load_reaction_scorer()
    assert scorer is not None and scorer.meta["fingerprint"] == REACTION_FINGERPRINT
    product, diffs, ref = scorer_check_data(path)
    assert len(diffs) > 1
    assert np.allclose(scorer.scores(product, diffs), ref, atol=1e-3)


def test_read_rejects_an_unreadable_or_foreign_scorer(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not an npz")
    with pytest.raises(DataError):
        read_reaction_scorer(bad)
    toy = toy_scorer()
    other = tmp_path / "other.npz"
    meta = {"fingerprint": {**REACTION_FINGERPRINT, "radius": 3}}
    np.savez(other, w_prod=toy.w_prod, w_diff=toy.w_diff, b1=toy.b1, w2=toy.w2, b2=np.float32(0.0),
             meta_json=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    with pytest.raises(DataError, match="another fingerprint"):
        read_reaction_scorer(other)


@pytest.fixture(scope="module")
def scored_model() -> TemplateKNNModel:
    return TemplateKNNModel(load_template_library(), named_templates=False, policy=None,
                            reaction_scorer=toy_scorer())


def test_every_candidate_gets_the_scorers_score_as_its_feature(scored_model):
    product = "CC(=O)Nc1ccc(O)cc1"
    canon, _, cands, feats = scored_model.candidates(product)
    assert len(cands) > 3
    pfp = fp(canon)
    diffs = [difference_features(pfp, [fp(s) for s in c.reactants]) for c in cands]
    expected = scored_model.reaction_scorer.scores(pfp, diffs)
    assert np.allclose([c.reaction_score for c in cands], expected, atol=1e-6)
    assert np.allclose(feats[:, COL], expected, atol=1e-6)
    preds = scored_model.predict(product, top_k=5)
    assert all("reaction_score" in p.evidence for p in preds)


def test_without_a_scorer_the_feature_is_zero_and_the_search_view_has_none(scored_model):
    plain = TemplateKNNModel(load_template_library(), named_templates=False, policy=None)
    assert plain.reaction_scorer is None
    _, _, cands, feats = plain.candidates("CC(=O)Nc1ccc(O)cc1")
    assert cands and np.all(feats[:, COL] == 0.0)
    assert all("reaction_score" not in p.evidence for p in plain.predict("CC(=O)Nc1ccc(O)cc1", top_k=5))
    # the search expands with a view of the model that never scores reactions
    ensemble = TemplateKNNModel(policy=load_policy())
    assert ensemble.reaction_scorer is load_reaction_scorer() and ensemble.reaction_scorer is not None
    if not ensemble.search_policy:
        assert ensemble.for_search().reaction_scorer is None


def test_the_model_without_policy_and_its_ranker_ignore_the_feature(monkeypatch):
    assert read_ranker(DATA_DIR / RANKER_FILE).weights[COL] == 0.0
    monkeypatch.setenv(POLICY_ENV, "off")
    assert TemplateKNNModel().reaction_scorer is None


def test_the_packaged_ensemble_ranker_weighs_the_reaction_score():
    ensemble = TemplateKNNModel(policy=load_policy())
    assert ensemble.ranker.weights[COL] > 0.0  # a higher reaction score makes a candidate more likely


def test_collected_parts_concatenate_with_shifted_pointers():
    from scripts.train_reaction_scorer import _concatenate

    def part(n_products: int, seed: int) -> dict:
        rng = np.random.default_rng(seed)
        sizes = rng.integers(2, 5, size=n_products)  # candidates per product
        n_cands = int(sizes.sum())
        dlen = rng.integers(1, 4, size=n_cands)
        plen = rng.integers(1, 6, size=n_products)
        meta = {"fingerprint": REACTION_FINGERPRINT}
        return {
            "product_idx": rng.integers(0, 2048, size=int(plen.sum())).astype(np.uint16),
            "product_ptr": np.cumsum([0, *plen]), "group_ptr": np.cumsum([0, *sizes]),
            "label": rng.integers(0, 2, size=n_products).astype(np.int32),
            "diff_idx": rng.integers(0, 2048, size=int(dlen.sum())).astype(np.uint16),
            "diff_val": rng.integers(-4, 5, size=int(dlen.sum())).astype(np.int8),
            "diff_ptr": np.cumsum([0, *dlen]),
            "meta_json": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
        }

    a, b = part(3, 1), part(4, 2)
    both = _concatenate([a, b])
    assert len(both["group_ptr"]) == 3 + 4 + 1 and len(both["label"]) == 7
    # the second part's last product and its last candidate read back unchanged
    g = 6
    assert np.array_equal(both["product_idx"][both["product_ptr"][g]:both["product_ptr"][g + 1]],
                          b["product_idx"][b["product_ptr"][3]:b["product_ptr"][4]])
    c = both["group_ptr"][-1] - 1
    assert np.array_equal(both["diff_val"][both["diff_ptr"][c]:both["diff_ptr"][c + 1]],
                          b["diff_val"][b["diff_ptr"][-2]:b["diff_ptr"][-1]])
    other = part(2, 3)
    other["meta_json"] = np.frombuffer(json.dumps({"fingerprint": {"radius": 3}}).encode(), dtype=np.uint8)
    with pytest.raises(SystemExit):
        _concatenate([a, other])


def write_member(path, scorer: ReactionScorer, seed: int, holdout_seed: int | None = 0) -> None:
    from scripts.train_template_policy import write_npz_deterministic

    product = fp("CC(=O)Nc1ccccc1")
    diffs = [difference_features(product, [fp("CC(=O)O"), fp("Nc1ccccc1")]),
             difference_features(product, [fp("CC(=O)Cl"), fp("Nc1ccccc1")])]
    meta = {"fingerprint": REACTION_FINGERPRINT, "seed": seed, "holdout": 0.05, "holdout_seed": holdout_seed,
            "data": {"queries": 10}, "hidden": len(scorer.b1), "held_out_candidate_topk": {"top1": 50.0}}
    write_npz_deterministic(path, {
        "w_prod": scorer.w_prod.astype(np.float16), "w_diff": scorer.w_diff.astype(np.float16),
        "b1": scorer.b1.astype(np.float16), "w2": scorer.w2.astype(np.float16), "b2": np.float32(scorer.b2),
        "check_product_idx": product[0].astype(np.uint16),
        "check_product_val": np.ones(len(product[0]), dtype=np.float32),
        "check_diff_idx": np.concatenate([d[0] for d in diffs]).astype(np.uint16),
        "check_diff_val": np.concatenate([d[1] for d in diffs]).astype(np.float32),
        "check_diff_offsets": np.cumsum([0] + [len(d[0]) for d in diffs]).astype(np.int64),
        "check_scores": np.zeros(len(diffs), dtype=np.float32),
        "meta_json": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
    })


def test_an_ensemble_of_scorers_is_one_wider_network_scoring_their_mean(tmp_path):
    from scripts.train_reaction_scorer import main

    members = [toy_scorer(hidden=4, seed=1), toy_scorer(hidden=4, seed=2)]
    for i, m in enumerate(members):
        write_member(tmp_path / f"m{i}.npz", m, seed=i)
    out = tmp_path / "ens.npz"
    assert main(["ensemble", "--members", str(tmp_path / "m0.npz"), str(tmp_path / "m1.npz"), "--out", str(out)]) == 0
    ens = read_reaction_scorer(out)
    assert ens.w_prod.shape == (REACTION_FINGERPRINT["fp_size"], 8) and ens.meta["ensemble_of"] == 2
    product = fp("CC(=O)Nc1ccccc1")
    diffs = [difference_features(product, [fp("CC(=O)O"), fp("Nc1ccccc1")]),
             difference_features(product, [fp("CC(=O)Cl"), fp("Nc1ccccc1")])]
    rounded = [read_reaction_scorer(tmp_path / f"m{i}.npz") for i in range(2)]  # float16 as written
    mean = np.mean([m.scores(product, diffs) for m in rounded], axis=0)
    np.testing.assert_allclose(ens.scores(product, diffs), mean, rtol=2e-2, atol=2e-2)
    # the file's own reference scores are the ensemble's
    np.testing.assert_allclose(ens.scores(product, diffs), read_npz_with_meta(out)[0]["check_scores"], rtol=1e-5,
                               atol=1e-5)
    # members of different seeds without one shared held-out split are refused
    for i, m in enumerate(members):
        write_member(tmp_path / f"n{i}.npz", m, seed=i, holdout_seed=None)
    with pytest.raises(SystemExit):
        main(["ensemble", "--members", str(tmp_path / "n0.npz"), str(tmp_path / "n1.npz"), "--out", str(out)])

"""The linear ranker of the single-step model and its trainer."""

from __future__ import annotations

import argparse
import csv
import gzip
import json
from types import SimpleNamespace

import numpy as np
import pytest

from molx_agent.errors import DataError
from molx_agent.retro.ranker import (
    FEATURES,
    CandidateEvidence,
    LinearRanker,
    Support,
    candidate_features,
    load_ranker,
    read_ranker,
)


@pytest.fixture(scope="module")
def trainer(repo_script):
    return repo_script("scripts/train_single_step_ranker.py")


def _amide_candidate(named: bool) -> CandidateEvidence:
    return CandidateEvidence(
        ("CC(=O)Cl", "Nc1ccc(O)cc1"),
        supports=[Support(0.8, 0.7, 0, 0), Support(0.5, 0.4, 1, 3)],
        reactant_heavy_atoms=(4, 8),
        reactant_rings=1,
        named=named,
    )


def test_candidate_features_follow_the_feature_list():
    counts = np.array([120.0, 3.0])
    feats = candidate_features(_amide_candidate(True), product_heavy_atoms=11, product_rings=1,
                               template_counts=counts, template_classes=[2, 2], n_neighbours=100)
    assert feats.shape == (len(FEATURES),)
    named = dict(zip(FEATURES, feats, strict=True))
    assert named["named_template"] == 1.0 and named["class_2"] == 1.0 and named["class_1"] == 0.0
    assert named["max_sim"] == pytest.approx(0.8)
    assert named["leaving_atoms"] == pytest.approx(0.1)  # 12 reactant heavy atoms for an 11-atom product
    assert named["first_support_rank"] == 0.0


def test_probabilities_are_a_softmax_over_candidates():
    ranker = LinearRanker.default()
    feats = np.zeros((3, len(FEATURES)))
    feats[:, FEATURES.index("log_vote_s4")] = [0.0, 1.0, -1.0]
    p = ranker.probabilities(feats)
    assert p.sum() == pytest.approx(1.0) and int(np.argmax(p)) == 1


def test_packaged_ranker_is_trained_on_the_current_features():
    ranker = load_ranker()
    assert ranker.trained, "molx_agent/data/retro_ranker.json missing: run scripts/train_single_step_ranker.py"
    assert ranker.weights.shape == (len(FEATURES),) and np.all(np.isfinite(ranker.weights))


def test_read_ranker_rejects_other_features_and_bad_files(tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"features": ["x"], "weights": [1.0]}))
    with pytest.raises(DataError):
        read_ranker(other)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(DataError):
        read_ranker(broken)


def test_conditional_logit_learns_which_feature_marks_the_answer(trainer):
    rng = np.random.default_rng(0)
    groups = []
    k = FEATURES.index("max_sim")
    for _ in range(200):
        feats = rng.normal(size=(6, len(FEATURES)))
        label = int(rng.integers(6))
        feats[label, k] += 3.0  # the right answer always has a higher max_sim
        groups.append((feats, label))
    w, _, _ = trainer.fit_conditional_logit(groups, steps=300)
    assert np.argmax(np.abs(w)) == k and w[k] > 0
    assert trainer.top_k_of(groups, w)["top1"] > 80.0


def test_named_only_candidates_have_finite_features():
    """A candidate only a named expert template proposed has no supporting neighbour: its features say so."""
    cand = CandidateEvidence(("CC(=O)Cl", "Nc1ccc(O)cc1"), reactant_heavy_atoms=(4, 8), reactant_rings=1,
                             named=True, named_only=True, named_class=2, nn_sim_x_rsim=0.42)
    assert cand.best_support() is None
    feats = candidate_features(cand, product_heavy_atoms=11, product_rings=1, template_counts=np.array([5.0]),
                               template_classes=[1], n_neighbours=100)
    assert np.all(np.isfinite(feats))
    named = dict(zip(FEATURES, feats, strict=True))
    assert named["named_only"] == 1.0 and named["named_template"] == 1.0
    assert named["class_2"] == 1.0 and named["class_1"] == 0.0  # the named template's class, not template 0's
    assert named["max_sim"] == 0.0 and named["log_support"] == 0.0 and named["first_support_rank"] == 1.0
    assert named["nn_sim_x_rsim"] == pytest.approx(0.42)
    supported = candidate_features(_amide_candidate(True), product_heavy_atoms=11, product_rings=1,
                                   template_counts=np.array([120.0, 3.0]), template_classes=[2, 2], n_neighbours=100)
    assert dict(zip(FEATURES, supported, strict=True))["named_only"] == 0.0


def test_paroutes_queries_leave_out_their_patent_and_product(trainer, tmp_path):
    train = tmp_path / "train.csv.gz"
    with gzip.open(train, "wt", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["product", "reactants"])
        writer.writeheader()
        writer.writerow({"product": "CC(=O)Nc1ccccc1", "reactants": "CC(=O)Cl.Nc1ccccc1"})
        writer.writerow({"product": "CCOC(C)=O", "reactants": "CC(=O)O.CCO"})
    kept = [  # the PaRoutes rows of the library, by train_row
        SimpleNamespace(product="CC(=O)Nc1ccccc1", reactants="CC(=O)O.Nc1ccccc1", patent="US1"),
        SimpleNamespace(product="CCNC(C)=O", reactants="CC(=O)Cl.CCN", patent="US1"),
        SimpleNamespace(product="O=C(O)c1ccccc1", reactants="COC(=O)c1ccccc1", patent="US2"),
    ]
    lib = SimpleNamespace(sources=np.array([0, 0, 1, 1, 1]), train_row=np.array([0, 1, 0, 1, 2]))
    args = argparse.Namespace(train=train, query_source="paroutes", queries=10, seed=0)
    queries, exclude = trainer._queries(lib, args, kept=kept)
    assert len(queries) == 3  # every PaRoutes row, no USPTO-50K row
    by_product = {q[0]: exclude[q[2]].tolist() for q in queries}
    # the acetanilide step: its own row, the USPTO-50K row of the same product and the other US1 step
    assert by_product["CC(=O)Nc1ccccc1"] == [0, 2, 3]
    assert by_product["CCNC(C)=O"] == [2, 3]
    assert by_product["O=C(O)c1ccccc1"] == [4]
    truth = {q[0]: q[1] for q in queries}
    assert truth["CCNC(C)=O"] == ("CC(=O)Cl", "CCN")
    args.query_source = "both"
    queries, exclude = trainer._queries(lib, args, kept=kept)
    assert len(queries) == 5 and exclude[queries[1][2]].tolist() == [1]  # a USPTO-50K query: its product only
    # with reactant counts: each key knows the molecules of the reactions it leaves out (once per reaction)
    left_out: dict = {}
    args.query_source = "paroutes"
    queries, exclude = trainer._queries(lib, args, kept=kept, left_out_reactants=left_out)
    by_product = {q[0]: left_out[q[2]] for q in queries}
    # acetanilide: rows 0 (acetyl chloride + aniline), 2 (acetic acid + aniline) and 3 (acetyl chloride + ethylamine)
    assert by_product["CC(=O)Nc1ccccc1"] == {"Nc1ccccc1": 2, "CC(=O)Cl": 2, "CC(=O)O": 1, "CCN": 1}
    assert by_product["O=C(O)c1ccccc1"] == {"COC(=O)c1ccccc1": 1}

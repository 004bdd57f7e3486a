"""The learned template-relevance policy: packaged weights, numpy inference = trainer, the ensemble, old mode."""

from __future__ import annotations

import json

import numpy as np
import pytest

from molx_agent.errors import DataError
from molx_agent.retro.policy import POLICY_FILE, load_policy, policy_check_data, read_policy
from molx_agent.retro.ranker import (
    FEATURES,
    POLICY_LOG_FLOOR,
    CandidateEvidence,
    Support,
    candidate_features,
    load_policy_ranker,
    load_ranker,
    read_ranker,
)
from molx_agent.retro.single_step import (
    POLICY_ENV,
    SEARCH_POLICY_ENV,
    TemplateKNNModel,
    _top_templates,
    policy_enabled,
    search_model,
    search_policy_enabled,
)
from molx_agent.retro.templates_db import DATA_DIR, fingerprint_bits, load_template_library
from tests.retro.policy_fixtures import toy_policy


def test_toy_policy_inference_is_an_elu_mlp_softmax():
    pol = toy_policy()
    bits = [3, 17, 2000]
    h = pol.w1[bits].sum(axis=0) + pol.b1
    h = np.where(h > 0, h, np.exp(h) - 1)
    z = h @ pol.w2 + pol.b2
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert np.allclose(pol.probabilities(bits), expected, atol=1e-6)
    top, probs = pol.top_templates(bits, max_templates=3, cumulative=1.1)
    assert list(top) == list(np.argsort(-expected, kind="stable")[:3])
    assert np.all(np.diff(probs) <= 0)


def test_top_templates_stops_at_the_cumulative_mass_and_breaks_ties_by_index():
    probs = np.array([0.1, 0.6, 0.1, 0.2, 0.0])
    assert _top_templates(probs, 5).tolist() == [1, 3, 0, 2]  # 0.6 + 0.2 + 0.1 + 0.1 reaches 0.999
    assert _top_templates(probs, 2).tolist() == [1, 3]
    assert _top_templates(np.array([0.9995, 0.0005]), 5).tolist() == [0]
    # a mass of 1 keeps all n (the float sum of the list need not reach 1)
    assert _top_templates(probs, 5, 1.0).tolist() == [1, 3, 0, 2, 4]
    assert _top_templates(np.array([0.9995, 0.0005]), 5, 1.0).tolist() == [0, 1]
    assert _top_templates(probs, 5, 0.7).tolist() == [1, 3]


def test_packaged_policy_is_compact_and_matches_the_library():
    path = DATA_DIR / POLICY_FILE
    assert path.is_file(), "run scripts/train_template_policy.py"
    assert path.stat().st_size <= 25 * 1024 * 1024
    pol = load_policy()
    lib = load_template_library()
    # trained on the library's USPTO-50K reactions only, over their templates (the first ones of the library)
    n_uspto = int((lib.sources == 0).sum())
    assert pol is not None and pol.n_templates == lib.n_uspto_templates
    assert pol.meta["n_train"] + pol.meta["n_held_out"] == n_uspto
    assert pol.meta["template_library_reactions"] == n_uspto


def test_numpy_inference_equals_the_trainers_output():
    inputs, logits = policy_check_data(DATA_DIR / POLICY_FILE)
    pol = load_policy()
    assert len(inputs) >= 3
    for bits, ref in zip(inputs, logits, strict=True):
        assert np.allclose(pol.logits(bits), ref, atol=1e-3)


def test_policy_ranks_the_recorded_template_of_a_training_product_high():
    lib = load_template_library()
    pol = load_policy()
    hits = 0
    n_uspto = int((lib.sources == 0).sum())  # the USPTO-50K rows come first
    for row in range(0, n_uspto, n_uspto // 20):
        bits = np.flatnonzero(np.unpackbits(lib.product_fps[row].view(np.uint8), bitorder="little"))
        top, _ = pol.top_templates(bits, max_templates=50, cumulative=1.1)
        hits += int(lib.template_idx[row]) in top.tolist()
    assert hits >= 14  # of 20 training products (the held-out fraction included)


def test_read_policy_rejects_a_policy_for_another_library(tmp_path):
    with pytest.raises(DataError):
        read_policy(DATA_DIR / POLICY_FILE, n_templates=3)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(DataError):
        read_policy(broken)


def test_policy_features_are_zero_without_a_policy_and_floor_for_named_only():
    base = dict(product_heavy_atoms=10, product_rings=1, template_counts=np.array([5.0, 1.0]),
                template_classes=[2, 6], n_neighbours=100, n_templates=2)
    cand = CandidateEvidence(("CC(=O)O", "NC"), supports=[Support(0.8, 0.7, 0, 0)], reactant_heavy_atoms=(4, 2))
    names = dict(zip(FEATURES, candidate_features(cand, **base), strict=True))
    assert [names[f] for f in ("policy_log_prob", "policy_log_max_prob", "policy_rank", "policy_only")] == [0] * 4
    cand.policy_probs, cand.policy_rank = {0: 0.5, 1: 0.25}, 0
    names = dict(zip(FEATURES, candidate_features(cand, **base), strict=True))
    assert names["policy_log_prob"] == pytest.approx(np.log(0.75))
    assert names["policy_log_max_prob"] == pytest.approx(np.log(0.5))
    assert names["policy_rank"] == 0.0 and names["policy_only"] == 0.0
    only = CandidateEvidence(("CCO",), reactant_heavy_atoms=(3,), policy_probs={1: 0.1}, policy_rank=1)
    names = dict(zip(FEATURES, candidate_features(only, **base), strict=True))
    assert names["policy_only"] == 1.0 and names["class_6"] == 1.0  # class of its policy template
    named = CandidateEvidence(("CCO",), reactant_heavy_atoms=(3,), named=True, named_only=True, policy_rank=2)
    names = dict(zip(FEATURES, candidate_features(named, **base), strict=True))
    assert names["policy_log_prob"] == POLICY_LOG_FLOOR and names["policy_only"] == 0.0


def test_old_ranker_file_with_fewer_features_loads_with_zero_weights(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"features": ["max_sim", "log_vote_s4"], "weights": [2.0, 1.0]}))
    r = read_ranker(old)
    assert r.weights.shape == (len(FEATURES),)
    assert r.weights[FEATURES.index("max_sim")] == 2.0 and r.weights[FEATURES.index("policy_log_prob")] == 0.0
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps({"features": ["max_sim", "max_sim"], "weights": [1.0, 1.0]}))
    with pytest.raises(DataError):
        read_ranker(dup)


def test_the_setting_switches_the_policy_off(monkeypatch):
    monkeypatch.setenv(POLICY_ENV, "off")
    assert not policy_enabled()
    off = TemplateKNNModel()
    assert off.policy is None and off.ranker is load_ranker()
    monkeypatch.setenv(POLICY_ENV, "on")
    assert policy_enabled()


@pytest.fixture(scope="module")
def ensemble() -> TemplateKNNModel:
    return TemplateKNNModel(policy=load_policy())


def test_the_ensemble_uses_the_policy_and_its_ranker(ensemble):
    assert ensemble.policy is not None
    assert ensemble.ranker is load_policy_ranker() and ensemble.ranker.trained
    weights = dict(zip(FEATURES, ensemble.ranker.weights, strict=True))
    assert weights["policy_log_prob"] != 0.0


def test_ensemble_predictions_are_probabilities_with_policy_evidence(ensemble):
    preds = ensemble.predict("CC(=O)Nc1ccc(O)cc1", top_k=50)
    assert preds and sum(p.score for p in preds) <= 1.0 + 1e-4
    assert all(0 < p.score <= 1 for p in preds)
    assert any("policy_probability" in p.evidence for p in preds)
    assert {"CC(=O)OC(C)=O", "Nc1ccc(O)cc1"} in [set(p.reactants) for p in preds[:5]] or \
        {"CC(=O)Cl", "Nc1ccc(O)cc1"} in [set(p.reactants) for p in preds[:5]]


def test_policy_only_candidates_are_proposed_with_their_template(ensemble):
    # a product far from every training product: the policy's templates still propose something
    product = "O=C(NC1CCCCC1)c1ccc2ccccc2c1"
    _, _, cands, _ = ensemble.candidates(product)
    only = [c for c in cands if not c.supports and c.policy_probs]
    preds = ensemble.predict(product, top_k=200)
    by_set = {tuple(p.reactants): p for p in preds}
    for c in only:
        p = by_set[tuple(c.reactants)]
        assert p.evidence["n_supporting_neighbours"] == 0 and p.template_id.startswith("USPTO50K_T")
    assert fingerprint_bits(product)


def test_paroutes_reactions_drop_every_excluded_product(tmp_path):
    import gzip

    from scripts.paroutes_reactions import kept_reactions

    leaf = {"smiles": "CCO", "inchikey": "K-LEAF", "synthesis_step": None, "is_leaf": True}
    mid = {"smiles": "CCOC", "inchikey": "K-MID", "is_leaf": False,
           "synthesis_step": {"reactants": [leaf], "mapped_smiles": "[CH3:1][OH:2]>>[CH3:1][O:2]C"}}
    top = {"smiles": "CCOCC", "inchikey": "K-TOP", "is_leaf": False,
           "synthesis_step": {"reactants": [mid], "mapped_smiles": "[CH3:1][O:2]C>>[CH3:1][O:2]CC"}}
    routes = tmp_path / "routes.json.gz"
    routes.write_bytes(gzip.compress(json.dumps({"targets": {"t1": {"ground_truth": {"target": top}}}}).encode()))
    exclude = tmp_path / "exclude.txt.gz"
    exclude.write_bytes(gzip.compress(b"K-TOP\n"))
    kept, stats = kept_reactions([routes], exclude)
    assert kept == {"[CH3:1][OH:2]>>[CH3:1][O:2]C": "K-MID"}
    assert stats == {"unique_reactions": 2, "unique_products": 2, "excluded": 1, "kept": 1}


def test_the_search_expands_without_the_policy_unless_asked(monkeypatch):
    """The default search view is exactly the no-policy model (the one the multi-step benchmarks measured as
    better under a time limit), sharing the template caches; ``MOLX_SEARCH_POLICY=on`` keeps the policy."""
    monkeypatch.delenv(SEARCH_POLICY_ENV, raising=False)
    monkeypatch.delenv(POLICY_ENV, raising=False)
    assert not search_policy_enabled()
    model = TemplateKNNModel()
    assert model.policy is not None and not model.search_policy
    view = search_model(model)
    assert view is model.for_search() and view is not model  # built once
    assert view.policy is None and view.ranker is load_ranker() and model.ranker is load_policy_ranker()
    assert view._compiled is model._compiled and view._precursor_cache is model._precursor_cache
    product = "CC(=O)Nc1ccc(OCc2ccccc2)cc1"
    plain = TemplateKNNModel(policy=None)
    assert [(p.reactants, p.score) for p in view.predict(product, top_k=10)] == \
        [(p.reactants, p.score) for p in plain.predict(product, top_k=10)]
    assert [p.reactants for p in model.predict(product, top_k=10)] != [] and model.policy is not None
    monkeypatch.setenv(SEARCH_POLICY_ENV, "on")
    assert search_policy_enabled()
    on = TemplateKNNModel()
    assert search_model(on) is on and on.policy is not None
    monkeypatch.setenv(POLICY_ENV, "off")
    assert not search_policy_enabled()  # no policy at all wins
    # an explicitly given policy is the caller's choice: the search keeps it
    explicit = TemplateKNNModel(policy=load_policy())
    assert search_model(explicit) is explicit
    assert search_model(TemplateKNNModel(policy=load_policy(), search_policy=False)).policy is None
    with pytest.raises(ValueError):
        TemplateKNNModel(policy=None, search_policy="sometimes")


def test_policy_ensemble_averages_the_members_logits_in_one_network(tmp_path, repo_script):
    # scripts/train_template_policy.py --ensemble: members side by side, output layer / k (numpy only)
    script = repo_script("scripts/train_template_policy.py")
    from molx_agent.retro.policy import GENERAL_POLICY_FILE

    arrays, meta = script.read_member(DATA_DIR / GENERAL_POLICY_FILE)
    rng = np.random.default_rng(0)
    other = dict(arrays)
    other["w1"] = (arrays["w1"].astype(np.float32) + rng.normal(0, 0.05, arrays["w1"].shape)).astype(np.float16)
    other["w2"] = (arrays["w2"].astype(np.float32) * 0.5).astype(np.float16)
    other_meta = json.loads(json.dumps(meta))
    other_meta["hyperparameters"].update(seed=1, holdout_seed=meta["hyperparameters"]["seed"])
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for path, (arr, m) in zip(paths, ((arrays, meta), (other, other_meta)), strict=True):
        script.write_npz_deterministic(path, {**arr, "meta_json": np.frombuffer(json.dumps(m).encode(), np.uint8)})
    out = tmp_path / "ensemble.npz"
    assert script.main(["--ensemble", *map(str, paths), "--out", str(out)]) == 0
    merged, a, b = (read_policy(p) for p in (out, *paths))
    assert merged.w1.shape[1] == 2 * a.w1.shape[1] and merged.n_templates == a.n_templates
    inputs, ref = policy_check_data(out)
    for bits, expected in zip(inputs, ref, strict=True):
        mean = (a.logits(bits) + b.logits(bits)) / 2
        assert np.allclose(merged.logits(bits), mean, atol=2e-2)
        assert np.allclose(expected, mean, atol=1e-4)
    assert merged.meta["held_out_template_topk"]["top50"] > 50
    assert [m["hyperparameters"]["seed"] for m in merged.meta["ensemble_of"]] == [0, 1]
    first = out.read_bytes()
    assert script.main(["--ensemble", *map(str, paths), "--out", str(out)]) == 0
    assert out.read_bytes() == first  # byte-identical on re-run
    # members of different held-out splits are refused
    other_meta["hyperparameters"]["holdout_seed"] = 7
    script.write_npz_deterministic(paths[1], {**other, "meta_json": np.frombuffer(json.dumps(other_meta).encode(),
                                                                                   np.uint8)})
    with pytest.raises(SystemExit):
        script.main(["--ensemble", *map(str, paths), "--out", str(out)])

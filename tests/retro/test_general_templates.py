"""General (radius-0) templates: extracted beside the specific ones, ranked by the general policy, proposed as
candidates the specific templates miss, and never used by the multi-step search's view."""

from __future__ import annotations

import csv
import gzip

import numpy as np
import pytest
from rdkit import Chem

from molx_agent.retro.ranker import FEATURES, POLICY_LOG_FLOOR, CandidateEvidence, Support, candidate_features
from molx_agent.retro.single_step import TemplateKNNModel, canonical_reactant_set
from molx_agent.retro.templates_db import read_template_library
from tests.retro.policy_fixtures import toy_policy

AMIDE = ("CC(=O)O.NCc1ccccc1", "CC(=O)NCc1ccccc1",
         "[CH3:1][C:2](=[O:3])O.[NH2:5][CH2:6][c:7]1[cH:8][cH:9][cH:10][cH:11][cH:12]1>>"
         "[CH3:1][C:2](=[O:3])[NH:5][CH2:6][c:7]1[cH:8][cH:9][cH:10][cH:11][cH:12]1")


def test_the_extractor_gives_a_radius_0_template_that_regenerates_the_reactants(repo_script):
    build = repo_script("scripts/build_templates.py")
    out = build._process((7, *AMIDE))
    assert out["status"] == "ok" and out["general_smarts"]
    general, specific = out["general_smarts"], out["retro_smarts"]
    # radius 0: fewer product-side atoms than the radius-1 template, the same bond made
    n_atoms = [Chem.MolFromSmarts(sm.split(">>")[0]).GetNumAtoms() for sm in (general, specific)]
    assert n_atoms[0] < n_atoms[1]
    assert build._process((7, *AMIDE))["general_smarts"] == general  # deterministic
    from rdchiral.main import rdchiralReactants, rdchiralReaction, rdchiralRun

    outs = rdchiralRun(rdchiralReaction(general), rdchiralReactants(AMIDE[1]), combine_enantiomers=False)
    assert build._canonical_set(AMIDE[0]) in {build._canonical_set(o) for o in outs}
    # a product whose centre has other neighbours: the general template applies, the specific one does not
    other = "O=C(NCc1ccccc1)c1ccccc1"
    assert rdchiralRun(rdchiralReaction(general), rdchiralReactants(other), combine_enantiomers=False)
    assert not rdchiralRun(rdchiralReaction(specific), rdchiralReactants(other), combine_enantiomers=False)


@pytest.fixture(scope="module")
def small_library(tmp_path_factory):
    from tests.conftest import SHARED_DATA as shared_data

    if not shared_data.is_dir():
        pytest.skip("../shared/data not available")
    import scripts.build_templates as build

    out = tmp_path_factory.mktemp("general")
    train = shared_data / "uspto50k" / "train_mapped.csv.gz"
    exclude = shared_data / "multistep" / "exclude_product_inchikeys.txt.gz"
    meta = build.build(train, exclude, out, limit=80, workers=1)
    again = tmp_path_factory.mktemp("general_again")
    build.build(train, exclude, again, limit=80, workers=1)
    for name in ("retro_templates.json.gz", "retro_train_index.npz"):
        assert (out / name).read_bytes() == (again / name).read_bytes()
    with gzip.open(train, "rt", newline="") as fh:
        products = [r["product"] for _, r in zip(range(80), csv.DictReader(fh), strict=False)]
    return meta, read_template_library(out), products


def test_library_carries_general_templates_and_each_reactions_general_form(small_library):
    meta, lib, _ = small_library
    assert lib.has_general and lib.general_idx is not None and lib.general_idx.shape == (lib.n_train,)
    n_general = len(lib.general_templates)
    assert meta["n_general_templates"] == n_general < len(lib.templates)  # more general: fewer of them
    assert lib.general_idx.min() >= -1 and lib.general_idx.max() == n_general - 1
    # counts = reactions per general template; ids by count then SMARTS
    counts = np.bincount(lib.general_idx[lib.general_idx >= 0], minlength=n_general)
    assert counts.tolist() == [t.count for t in lib.general_templates]
    assert all(t.id == f"GENERAL_T{i + 1:05d}" for i, t in enumerate(lib.general_templates))
    assert meta["n_reactions_without_general"] == int((lib.general_idx < 0).sum())


def test_general_only_candidates_are_proposed_and_labelled(small_library):
    _, lib, products = small_library
    n_general = len(lib.general_templates)
    model = TemplateKNNModel(lib, policy=toy_policy(len(lib.templates)),
                             general_policy=toy_policy(n_general), general_templates=n_general)
    plain = TemplateKNNModel(lib, policy=toy_policy(len(lib.templates)), general_policy=None)
    general_only = []
    for product in products[::4]:
        _, _, cands, feats = model.candidates(product)
        _, _, base, _ = plain.candidates(product)
        assert {c.reactants for c in base} <= {c.reactants for c in cands}  # general templates only add
        names = list(FEATURES)
        for c, f in zip(cands, feats, strict=True):
            assert c.general_rank is not None
            if c.general_only:
                assert not c.supports and not c.policy_probs and c.general_probs
                assert f[names.index("general_only")] == 1.0 and f[names.index("policy_only")] == 0.0
                general_only.append((product, c.reactants))
        if len(general_only) >= 3:
            break
    assert general_only, "general templates proposed nothing new on 20 training products"
    product, reactants = general_only[0]
    preds = model.predict(product, top_k=500)
    hit = next(p for p in preds if tuple(p.reactants) == reactants)
    assert hit.source == "general_templates" and hit.template_id.startswith("GENERAL_T")
    assert hit.evidence["n_supporting_neighbours"] == 0 and hit.evidence["general_policy_probability"] > 0
    assert abs(sum(p.score for p in preds) - 1.0) < 1e-3


def test_general_mass_stops_the_general_policys_list(small_library):
    _, lib, products = small_library
    n_general = len(lib.general_templates)
    kw = dict(policy=toy_policy(len(lib.templates)), general_policy=toy_policy(n_general), general_templates=n_general)
    short, full = TemplateKNNModel(lib, general_mass=0.5, **kw), TemplateKNNModel(lib, general_mass=1.0, **kw)
    assert TemplateKNNModel(lib, **kw).general_mass == 0.999
    more = 0
    for product in products[::4]:
        few = {c.reactants for c in short.candidates(product)[2]}
        every = {c.reactants for c in full.candidates(product)[2]}
        assert few <= every
        more += len(every) > len(few)
    assert more, "every general template added nothing on 20 training products"
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="general_mass"):
            TemplateKNNModel(lib, general_mass=bad, **kw)


def test_general_features_are_zero_without_general_templates():
    base = dict(product_heavy_atoms=10, product_rings=1, template_counts=np.array([5.0, 1.0, 9.0]),
                template_classes=[2, 6, 1], n_neighbours=100, n_templates=2, n_general=1)
    cand = CandidateEvidence(("CC(=O)O", "NC"), supports=[Support(0.8, 0.7, 0, 0)], reactant_heavy_atoms=(4, 2))
    names = dict(zip(FEATURES, candidate_features(cand, **base), strict=True))
    general = ("general_only", "general_log_vote_s4", "general_policy_log_prob", "general_policy_rank")
    assert [names[f] for f in general] == [0.0] * 4
    only = CandidateEvidence(("CCO",), reactant_heavy_atoms=(3,), general_only=True, named_class=1,
                             general_supports=[Support(0.5, 0.4, 2, 3)], general_probs={0: 0.2}, general_rank=0)
    names = dict(zip(FEATURES, candidate_features(only, **base), strict=True))
    assert names["general_only"] == 1.0 and names["policy_only"] == 0.0 and names["class_1"] == 1.0
    assert names["general_log_vote_s4"] == pytest.approx(np.log(0.5**4 * 0.4 + 1e-4))
    assert names["general_policy_log_prob"] == pytest.approx(np.log(0.2)) and names["general_policy_rank"] == 0.0
    none = CandidateEvidence(("CCO",), reactant_heavy_atoms=(3,), general_rank=1)
    names = dict(zip(FEATURES, candidate_features(none, **base), strict=True))
    assert names["general_policy_log_prob"] == POLICY_LOG_FLOOR


def test_the_search_view_applies_no_general_template(small_library):
    _, lib, _ = small_library
    model = TemplateKNNModel(lib, policy=toy_policy(len(lib.templates)),
                             general_policy=toy_policy(len(lib.general_templates)), search_policy=False)
    view = model.for_search()
    assert view.policy is None and view.general_policy is None
    product = "CC(=O)Nc1ccc(OCc2ccccc2)cc1"
    _, _, cands, _ = view.candidates(product)
    assert not any(c.general_only for c in cands) and all(c.general_rank is None for c in cands)
    with pytest.raises(ValueError):
        TemplateKNNModel(lib, policy=None, general_policy=toy_policy(3))
    assert canonical_reactant_set("OC.C") == ("C", "CO")


def test_packaged_general_policy_matches_the_library_and_the_trainer():
    from molx_agent.retro.policy import (
        GENERAL_POLICY_FILE,
        POLICY_FILE,
        load_general_policy,
        policy_check_data,
    )
    from molx_agent.retro.templates_db import DATA_DIR, load_template_library

    lib = load_template_library()
    assert lib.has_general and lib.general_idx is not None
    counts = np.bincount(lib.general_idx[lib.general_idx >= 0], minlength=len(lib.general_templates))
    assert counts.tolist() == [t.count for t in lib.general_templates]
    pol = load_general_policy()
    assert pol is not None and pol.n_templates == len(lib.general_templates)
    assert pol.meta["target"] == "general"
    assert pol.meta["n_train"] + pol.meta["n_held_out"] == int((lib.general_idx >= 0).sum())
    # both policies together stay within the 25 MB
    assert (DATA_DIR / POLICY_FILE).stat().st_size + (DATA_DIR / GENERAL_POLICY_FILE).stat().st_size <= 25 * 1024**2
    inputs, logits = policy_check_data(DATA_DIR / GENERAL_POLICY_FILE)
    for bits, ref in zip(inputs, logits, strict=True):
        assert np.allclose(pol.logits(bits), ref, atol=1e-3)
    # the general policy ranks a training product's own general template high
    hits = 0
    rows = np.flatnonzero(lib.general_idx >= 0)[:: max(1, int((lib.general_idx >= 0).sum()) // 20)][:20]
    for row in rows:
        bits = np.flatnonzero(np.unpackbits(lib.product_fps[row].view(np.uint8), bitorder="little"))
        top, _ = pol.top_templates(bits, max_templates=10, cumulative=1.1)
        hits += int(lib.general_idx[row]) in top.tolist()
    assert hits >= 16


def test_the_default_model_applies_general_templates_with_its_trained_ranker():
    from molx_agent.retro.policy import load_general_policy
    from molx_agent.retro.ranker import load_policy_ranker

    model = TemplateKNNModel()
    assert model.general_policy is load_general_policy() and model.general_templates == 50
    weights = dict(zip(FEATURES, load_policy_ranker().weights, strict=True))
    assert weights["general_policy_log_prob"] != 0.0 and weights["general_only"] != 0.0
    # benzylic amide with a cyclopropyl acyl group: the model proposes the amide coupling among its best
    preds = model.predict("O=C(NCc1ccccc1)C1CC1", top_k=20)
    assert abs(sum(p.score for p in model.predict("O=C(NCc1ccccc1)C1CC1", top_k=10_000)) - 1.0) < 1e-3
    sets = [set(p.reactants) for p in preds[:5]]
    assert any("NCc1ccccc1" in s for s in sets)
    plain = TemplateKNNModel(general_policy=None)
    assert plain.general_policy is None


def test_the_neighbours_general_templates_support_the_candidates_they_give(small_library):
    """``general_neighbours``: a training product's own reaction (its nearest neighbour, similarity 1) supports the
    recorded reactants through its general template, which the vote feature then counts."""
    _, lib, products = small_library
    rows = [r for r in range(lib.n_train) if lib.general_idx[r] >= 0 and int(lib.train_row[r]) < len(products)][:5]
    assert rows
    model = TemplateKNNModel(lib, policy=toy_policy(len(lib.templates)),
                             general_policy=toy_policy(len(lib.general_templates)), general_neighbours=10)
    names = list(FEATURES)
    for row in rows:
        product = products[int(lib.train_row[row])]
        _, _, cands, feats = model.candidates(product)
        supported = [(c, f) for c, f in zip(cands, feats, strict=True)
                     if any(s.similarity == pytest.approx(1.0) and s.template == len(lib.templates) + lib.general_idx[row]
                            for s in c.general_supports)]
        assert supported, product
        assert all(f[names.index("general_log_vote_s4")] > np.log(1e-4) for _, f in supported)


def test_the_general_list_is_drawn_from_the_templates_that_match_the_product():
    """``general_screen``: the list applied holds only general templates whose product side matches, best first by
    the policy, stopping at ``general_mass`` of the matching templates' renormalised probability; ``0`` gives the
    policy's raw list, matching or not."""
    from rdchiral.initialization import rdchiralReactants

    from molx_agent.retro.single_step import _top_templates, fingerprint_bits_of_mol, parse_product

    assert TemplateKNNModel.__init__.__kwdefaults__["general_screen"] == 0  # opt-in
    model = TemplateKNNModel(general_screen=300)
    n_spec = len(model.library.templates)
    smiles = "O=C(NCc1ccccc1)C1CC1"
    mol = parse_product(smiles)
    target = rdchiralReactants(Chem.MolToSmiles(mol))
    probs = model.general_policy.probabilities(fingerprint_bits_of_mol(mol))

    def matches(g: int) -> bool:
        patt = model._pattern(n_spec + g)
        return patt is not None and target.reactants_achiral.HasSubstructMatch(patt)

    screened = model._general_list(probs, target).tolist()
    raw = _top_templates(probs, model.general_templates, model.general_mass).tolist()
    assert screened and all(matches(g) for g in screened)
    assert not all(matches(g) for g in raw)  # the raw list spends slots on templates that cannot apply
    assert [probs[g] for g in screened] == sorted((probs[g] for g in screened), reverse=True)
    # the matching templates are taken in the policy's order, none skipped: every matching template of the raw list,
    # and on until they hold general_mass of the matching templates' renormalised probability
    top = _top_templates(probs, model.general_screen, 1.0).tolist()
    matching = [g for g in top if matches(g)]
    assert screened == matching[: len(screened)]
    assert {g for g in raw if matches(g)} <= set(screened)
    share = np.cumsum([probs[g] for g in matching]) / sum(probs[g] for g in matching)
    n_raw = sum(matches(g) for g in raw)
    assert len(screened) == max(n_raw, int(np.searchsorted(share, model.general_mass)) + 1)
    model.general_screen = 0
    assert model._general_list(probs, target).tolist() == raw
    with pytest.raises(ValueError, match="general_screen"):
        TemplateKNNModel(general_screen=-1)

"""PaRoutes route reactions in the template library (issue 28, part 2): the leakage rule, the build, the model."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from rdkit import Chem

from molx_agent.retro.policy import TemplatePolicy
from molx_agent.retro.single_step import TemplateKNNModel, canonical_reactant_set
from molx_agent.retro.templates_db import read_template_library


def _node(smiles, key, step=None):
    return {"smiles": smiles, "inchikey": key, "is_leaf": step is None, "synthesis_step": step}


def _step(mapped, patent, kids):
    return {"mapped_smiles": mapped, "metadata": {"ID": f"{patent};;1"}, "reactants": kids}


def _write(path, targets):
    path.write_bytes(gzip.compress(json.dumps({"targets": targets}).encode()))
    return path


@pytest.fixture
def rule_files(tmp_path):
    """Four PaRoutes steps, one reported benchmark and one USPTO-50K split, each hiding one of them."""
    ethanol = "AAAAAAAAAAAAAA-UHFFFAOYSA-N"
    def route(target_key, patent, product="CCOC(C)=O", mapped="[CH3:1][CH2:2][OH:3]>>[CH3:1][CH2:2][O:3]C(C)=O"):
        return {"ground_truth": {"target": _node(product, target_key, _step(mapped, patent, [_node("CCO", ethanol)]))}}

    routes = _write(tmp_path / "paroutes.json.gz", {
        "t1": route("KEEPKEEPKEEPKE-UHFFFAOYSA-N", "US01111111", mapped="[CH3:1][OH:2]>>[CH3:1][O:2]C"),
        "t2": route("BENCHPATENTXXX-UHFFFAOYSA-N", "US02222222B2", mapped="[CH3:1][SH:2]>>[CH3:1][S:2]C"),
        "t3": route("BENCHPRODUCTXX-UHFFFAOYSA-N", "US03333333", mapped="[NH3:1]>>[NH2:1]C"),
        "t4": route("EVALPATENTXXXX-UHFFFAOYSA-N", "US04444444", mapped="[ClH:1]>>[Cl:1]C"),
    })
    # the reported benchmark: a route from patent US02222222 (another kind code) and a product of t3 (other stereo)
    reported = _write(tmp_path / "ref.json.gz", {
        "r1": {"ground_truth": {"target": _node("CCCC", "ZZZZZZZZZZZZZZ-UHFFFAOYSA-N", _step(
            "[CH3:1][CH3:2]>>[CH3:1][CH2:2]CC", "US02222222A1", [_node("CC", "YYYYYYYYYYYYYY-UHFFFAOYSA-N")]))}},
        "r2": {"ground_truth": {"target": _node("CCCN", "BENCHPRODUCTXX-SNVBAGLBSA-N", _step(
            "[CH3:1]>>[CH3:1]N", "US09999999", [_node("C", "XXXXXXXXXXXXXX-UHFFFAOYSA-N")]))}},
    })
    uspto = tmp_path / "gln_split_test.csv.gz"
    uspto.write_bytes(gzip.compress(b"id,class,reactants>reagents>production\n"
                                    b"US04444444A1,1,[CH3:1][OH:2]>>[CH3:1][O:2]CC\n"))
    return routes, reported, uspto


def test_library_rule_drops_benchmark_and_evaluation_patents_and_products(rule_files):
    from scripts import paroutes_reactions as mod
    routes, reported, uspto = rule_files
    kept, stats = mod.training_reactions([routes], [reported], [uspto])
    assert [r.patent for r in kept] == ["US01111111"]
    assert kept[0].product == "CCOC(C)=O" and kept[0].reactants == "CCO" and kept[0].mapped.startswith("[CH3:1][OH:2]")
    assert stats == {"unique_reactions": 4, "benchmark_patent": 1, "benchmark_product": 1,
                     "uspto50k_eval_patent": 1, "uspto50k_eval_product": 0, "kept": 1, "patents_kept": 1}
    # the benchmark's leaves are starting materials, not products to hide: ethanol's key is not in the guard
    patents, keys = mod.reported_benchmark_guard([reported])
    assert patents == {"US02222222", "US09999999"} and "YYYYYYYYYYYYYY" not in keys and "BENCHPRODUCTXX" in keys


def test_patent_numbers_drop_kind_codes_and_reaction_ids():
    from scripts import paroutes_reactions as mod
    assert mod.patent_number("US04870074;;199652") == "US04870074"
    assert mod.patent_number("US07928231B2") == mod.patent_number("US07928231") == "US07928231"
    assert mod.patent_number("US20090192322A1;;3") == "US20090192322"


def test_the_real_library_rule_keeps_no_reported_patent(shared_data):
    """On the real files: no kept reaction comes from a patent of ref-lin-600 / random-n5-100 or USPTO-50K test."""
    from scripts import paroutes_reactions as mod
    bench = shared_data / "multistep" / "benchmarks"
    patents, _ = mod.reported_benchmark_guard([bench / "ref-lin-600.json.gz", bench / "random-n5-100.json.gz"])
    routes = [bench / "paroutes-n5-full-buyables.json.gz"]
    kept, stats = mod.training_reactions(routes, [bench / "ref-lin-600.json.gz", bench / "random-n5-100.json.gz"],
                                         [shared_data / "uspto50k" / "gln_split_test.csv.gz"])
    assert stats["kept"] == len(kept) > 5000 and stats["benchmark_patent"] > 0
    assert not {r.patent for r in kept} & patents
    assert [r.mapped for r in kept] == sorted(r.mapped for r in kept)


def _paroutes_records(mod, shared_data, n):
    """The first ``n`` steps of the real PaRoutes n5 routes as library records (no filtering: a build test)."""
    path = shared_data / "multistep" / "benchmarks" / "paroutes-n5-full-buyables.json.gz"
    out = []
    for node, step in mod._nodes(path):
        if step and step.get("mapped_smiles"):
            kids = ".".join(k["smiles"] for k in step["reactants"])
            out.append(mod.RouteReaction(step["mapped_smiles"], node["smiles"], kids,
                                         mod.patent_number(step["metadata"]["ID"]), node["inchikey"][:14]))
        if len(out) == n:
            return out
    return out


def test_build_with_paroutes_keeps_the_uspto_templates_first(repo_script, shared_data, tmp_path):
    build = repo_script("scripts/build_templates.py")
    from scripts import paroutes_reactions as routes
    train = shared_data / "uspto50k" / "train_mapped.csv.gz"
    exclude = shared_data / "multistep" / "exclude_product_inchikeys.txt.gz"
    extra = _paroutes_records(routes, shared_data, 40)
    plain = build.build(train, exclude, tmp_path / "plain", limit=60, workers=1)
    meta = build.build(train, exclude, tmp_path / "both", limit=60, workers=1, extra=extra, extra_rule={"kept": 40})
    again = build.build(train, exclude, tmp_path / "again", limit=60, workers=1, extra=extra, extra_rule={"kept": 40})
    for name in ("retro_templates.json.gz", "retro_train_index.npz"):
        assert (tmp_path / "both" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
    assert "sources" not in plain and "n_templates_uspto50k" not in plain  # a USPTO-50K-only build is as before
    assert meta == again and meta["paroutes_rule"] == {"kept": 40}

    lib0, lib = read_template_library(tmp_path / "plain"), read_template_library(tmp_path / "both")
    n0 = len(lib0.templates)
    assert lib.n_uspto_templates == n0 == lib0.n_uspto_templates
    assert [t.retro_smarts for t in lib.templates[:n0]] == [t.retro_smarts for t in lib0.templates]
    assert [t.id for t in lib.templates[:n0]] == [t.id for t in lib0.templates]
    assert len(lib.templates) > n0 and all(t.id.startswith("PAROUTES_T") for t in lib.templates[n0:])
    assert meta["sources"]["uspto50k"] == lib0.n_train and meta["sources"]["paroutes"] > 20
    assert lib.sources.tolist() == [0] * lib0.n_train + [1] * meta["sources"]["paroutes"]
    assert lib0.source is None and not lib0.sources.any()
    assert np.array_equal(lib.product_fps[: lib0.n_train], lib0.product_fps)
    assert sum(t.count for t in lib.templates) == lib.n_train
    # a PaRoutes product finds its own reaction as the nearest neighbour and the model proposes its reactants
    row = lib0.n_train
    rec = extra[int(lib.train_row[row])]
    model = TemplateKNNModel(lib, policy=None)
    idx, sims = model.neighbours(Chem.MolFromSmiles(rec.product), n=3)
    assert sims[0] == pytest.approx(1.0)
    preds = model.predict(rec.product, top_k=50)
    assert canonical_reactant_set(rec.reactants) in [tuple(sorted(p.reactants)) for p in preds]
    for p in preds:
        if p.source != "named_template":
            assert p.source == ("paroutes_templates" if p.template_id.startswith("PAROUTES_T") else "uspto50k_templates")

    # a policy over the USPTO-50K templates only still runs on the longer library
    rng = np.random.default_rng(0)
    policy = TemplatePolicy(w1=rng.normal(size=(2048, 4)).astype(np.float32), b1=np.zeros(4, np.float32),
                            w2=rng.normal(size=(4, n0)).astype(np.float32), b2=np.zeros(n0, np.float32))
    with_policy = TemplateKNNModel(lib, policy=policy)
    _, _, cands, _ = with_policy.candidates(rec.product)
    assert cands and all(t < n0 for c in cands for t in c.policy_probs)
    wrong = TemplatePolicy(w1=policy.w1, b1=policy.b1, w2=policy.w2[:, :3], b2=policy.b2[:3])
    with pytest.raises(ValueError):
        TemplateKNNModel(lib, policy=wrong)

"""The learned value for open molecules (issue 28, part 3): training data, the trainer, the file, the search knob."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from rdkit import Chem

from molx_agent.errors import DataError, ValidationError
from molx_agent.retro import value as value_mod
from molx_agent.retro.search import RetroStarSearch, SearchConfig, search_routes
from molx_agent.retro.stock import FileStock
from molx_agent.retro.templates_db import FINGERPRINT, fingerprint_bits
from molx_agent.retro.toy_model import DictSingleStepModel
from molx_agent.retro.value import ValueModel, load_value_model, read_value_model

IMATINIB = "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"


@pytest.fixture
def trainer(repo_script):
    return repo_script("scripts/train_value_model.py")


def _node(smiles, key, step=None):
    return {"smiles": smiles, "inchikey": key, "is_leaf": step is None, "synthesis_step": step}


def _step(patent, kids):
    return {"mapped_smiles": "", "metadata": {"ID": f"{patent};;1"}, "reactants": kids}


def _write(path, targets):
    path.write_bytes(gzip.compress(json.dumps({"targets": targets}).encode()))
    return path


@pytest.fixture
def route_files(tmp_path):
    """Two-step route to P (via I), a one-step route to the same I from another patent, a route whose intermediate is a
    benchmark product (so its target is left out too), and one from a USPTO-50K test patent."""
    leaf = _node("CCO", "LEAFLEAFLEAFLE-UHFFFAOYSA-N")
    inter = lambda patent: _node("CCOC(C)=O", "INTERINTERINTE-UHFFFAOYSA-N", _step(patent, [leaf]))  # noqa: E731
    routes = _write(tmp_path / "paroutes.json.gz", {
        "a": {"ground_truth": {"target": _node("CC(=O)OCC(C)C", "PPPPPPPPPPPPPP-UHFFFAOYSA-N",
                                               _step("US01111111", [inter("US01111111")]))}},
        "b": {"ground_truth": {"target": _node("CCOC(C)=O", "INTERINTERINTE-UHFFFAOYSA-N", _step("US05555555", [leaf]))}},
        "c": {"ground_truth": {"target": _node("CCCCOC(C)=O", "QQQQQQQQQQQQQQ-UHFFFAOYSA-N", _step("US06666666", [
            _node("CCCCO", "BENCHPRODUCTXX-UHFFFAOYSA-N", _step("US06666666", [leaf]))]))}},
        "d": {"ground_truth": {"target": _node("CCCOC(C)=O", "EVALEVALEVALEV-UHFFFAOYSA-N", _step("US04444444", [leaf]))}},
    })
    reported = _write(tmp_path / "ref.json.gz", {
        "r": {"ground_truth": {"target": _node("CCCCO", "BENCHPRODUCTXX-UHFFFAOYSA-N", _step("US09999999", [leaf]))}}})
    uspto = tmp_path / "gln_split_test.csv.gz"
    uspto.write_bytes(gzip.compress(b"id,class,reactants>reagents>production\nUS04444444A1,1,[CH3:1][OH:2]>>[CH3:1][O:2]C\n"))
    return routes, reported, uspto


def test_training_molecules_follow_the_leakage_rule_and_keep_the_shortest_sub_route(trainer, route_files):
    routes, reported, uspto = route_files
    rows, counts = trainer.route_molecules([routes], [reported], [uspto])
    got = {r["key"]: (r["smiles"], r["steps"]) for r in rows}
    # P needs 2 reactions; I is made in 2 routes (1 reaction each): kept once; Q's sub-route has a benchmark product,
    # so Q is left out with it; the USPTO-50K test patent's molecule is left out
    assert got == {"INTERINTERINTE": ("CCOC(C)=O", 1), "PPPPPPPPPPPPPP": ("CC(=O)OCC(C)C", 2)}
    assert counts == {"made_molecules": 6, "left_out": 3, "molecules": 2}


def test_ridge_recovers_a_linear_rule_and_leaves_the_intercept_unpenalised(trainer):
    rng = np.random.default_rng(0)
    x = np.c_[rng.integers(0, 2, size=(200, 5)).astype(float), np.ones(200)]
    y = x @ np.array([1.0, -0.5, 0.0, 2.0, 0.25, 3.0])
    assert np.allclose(trainer.fit_ridge(x, y, 1e-9), [1.0, -0.5, 0.0, 2.0, 0.25, 3.0], atol=1e-6)
    # a huge penalty shrinks the weights to 0, and the unpenalised intercept becomes the mean
    coef = trainer.fit_ridge(x, y, 1e12)
    assert np.allclose(coef[:5], 0, atol=1e-6) and coef[5] == pytest.approx(y.mean(), abs=1e-4)
    ranks = trainer._ranks(np.array([3.0, 1.0, 1.0, 2.0]))
    assert ranks.tolist() == [3.0, 0.5, 0.5, 2.0]


def test_trainer_writes_a_readable_file_byte_identically(trainer, route_files, tmp_path):
    routes, reported, uspto = route_files
    # more molecules: a family of esters whose reaction count grows with chain length
    leaf = _node("O", "WATERWATERWATE-UHFFFAOYSA-N")
    targets = {}
    for n in range(1, 31):
        smi = "C" * n + "OC(C)=O"
        node = leaf
        for k in range(1 + n // 6):
            node = _node(smi if k == n // 6 else "C" * n + "O" + "C" * (k + 1), f"K{n:02d}X{k:02d}{'X' * 8}-UHFFFAOYSA-N",
                         _step(f"US1{n:07d}", [node]))
        targets[f"t{n}"] = {"ground_truth": {"target": node}}
    more = _write(tmp_path / "more.json.gz", targets)
    out1, out2, summary = tmp_path / "v1.npz", tmp_path / "v2.npz", tmp_path / "s.json"
    args = ["--routes", str(routes), str(more), "--reported", str(reported), "--uspto-eval", str(uspto),
            "--holdout", "0.2", "--lambdas", "0.1", "1"]
    assert trainer.main([*args, "--out", str(out1), "--json", str(summary)]) == 0
    assert trainer.main([*args, "--out", str(out2)]) == 0
    assert out1.read_bytes() == out2.read_bytes()
    model = read_value_model(out1)
    meta = json.loads(summary.read_text())
    assert meta["molecules"] == model.meta["molecules"] > 30 and meta["holdout"]["chosen_lambda"] in (0.1, 1.0)
    # the cost map sends the average molecule of a size to the size line: positive cost per predicted reaction
    assert model.cost_per_step > 0
    # bad input: a clear message and exit 2
    assert trainer.main([*args[:-5], "--holdout", "1.5", "--out", str(out1)]) == 2
    assert trainer.main(["--routes", str(tmp_path / "missing.json.gz"), "--out", str(out1)]) == 2


def test_read_value_model_rejects_a_bad_file(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(DataError):
        read_value_model(bad)
    other = tmp_path / "other.npz"
    meta = {"fingerprint": {**FINGERPRINT, "fp_size": 1024}, "cost_base": 0.0, "cost_per_step": 1.0}
    np.savez(other, w=np.zeros(1024, np.float32), coef=np.zeros(2),
             meta_json=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    with pytest.raises(DataError):
        read_value_model(other)


def test_the_packaged_value_model_ranks_a_drug_above_a_reagent():
    model = load_value_model()
    assert model is not None, "molx_agent/data/retro_value.npz is packaged"
    assert model.meta["fingerprint"] == FINGERPRINT and model.cost_per_step > 0
    # trained on PaRoutes molecules with the leakage rule; held-out figures are recorded in the file
    held = model.meta["holdout"]
    assert held["ridge"]["spearman"] > held["heavy_atom_line"]["spearman"]
    acid = model.steps("OC(=O)c1ccccc1")
    drug = model.steps(IMATINIB)
    assert acid is not None and drug is not None and 1.0 <= acid < drug
    assert model.steps("not a smiles") is None
    # the bits path is what the search computes
    mol = Chem.MolFromSmiles(IMATINIB)
    assert model.steps_from_bits(fingerprint_bits(IMATINIB), mol.GetNumHeavyAtoms()) == pytest.approx(drug)


AMINOPHENOL = "Nc1ccc(O)cc1"
BENZYLOXY = "Nc1ccc(OCc2ccccc2)cc1"
PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"


class _Recording(DictSingleStepModel):
    def __init__(self, table):
        super().__init__(table)
        self.asked: list[str] = []

    def predict(self, product_smiles, top_k=50, *, deadline=None):
        self.asked.append(product_smiles)
        return super().predict(product_smiles, top_k, deadline=deadline)


def _order(tmp_path, config):
    """The molecules the search expands, in order: the target, then one of two equally scored open precursors."""
    model = _Recording({PARACETAMOL: [([AMINOPHENOL], 0.5, "a"), ([BENZYLOXY], 0.5, "b")],
                        AMINOPHENOL: [(["Oc1ccccc1"], 0.5, "c")], BENZYLOXY: [(["Oc1ccccc1"], 0.5, "d")]})
    stock = tmp_path / "stock.smi"
    stock.write_text("Oc1ccccc1\n")
    search_routes(PARACETAMOL, stock=FileStock(stock), model=model, config=config)
    return [Chem.CanonSmiles(s) for s in model.asked]


def test_the_learned_value_steers_which_open_molecule_is_expanded_first(tmp_path, monkeypatch):
    base = dict(time_limit=30, max_expansions=2, validate=False, n_routes=1)
    # the size line: the smaller precursor looks cheaper and is expanded first
    assert _order(tmp_path, SearchConfig(**base))[1] == Chem.CanonSmiles(AMINOPHENOL)
    # a value model that knows aminophenol (its bits absent from the benzyl ether) is hard turns the order around
    w = np.zeros(FINGERPRINT["fp_size"], np.float32)
    only_small = set(fingerprint_bits(AMINOPHENOL)) - set(fingerprint_bits(BENZYLOXY))
    assert only_small
    w[list(only_small)] = 5.0
    fake = ValueModel(w=w, atom_weight=0.0, intercept=1.0, cost_base=0.0, cost_per_step=2.0)
    monkeypatch.setattr(value_mod, "load_value_model", lambda: fake)
    cfg = SearchConfig(**base, leaf_estimate="learned")
    assert _order(tmp_path, cfg)[1] == Chem.CanonSmiles(BENZYLOXY)
    search = RetroStarSearch(PARACETAMOL, DictSingleStepModel({}), FileStock(tmp_path / "stock.smi"), cfg)
    assert search.leaf_estimate(AMINOPHENOL) == pytest.approx(2.0 * fake.steps(AMINOPHENOL))
    assert search.caches.predicted_steps[AMINOPHENOL] == pytest.approx(fake.steps(AMINOPHENOL))
    # at least leaf_cost
    assert RetroStarSearch(PARACETAMOL, DictSingleStepModel({}), FileStock(tmp_path / "stock.smi"),
                           SearchConfig(**base, leaf_estimate="learned", leaf_cost=100.0)).root.value == 100.0


def test_bad_leaf_estimate_or_missing_value_file_is_a_clear_error(tmp_path, monkeypatch):
    stock = tmp_path / "stock.smi"
    stock.write_text("Oc1ccccc1\n")
    with pytest.raises(ValidationError) as err:
        search_routes(PARACETAMOL, stock=FileStock(stock), model=DictSingleStepModel({}),
                      config=SearchConfig(leaf_estimate="magic", validate=False))
    assert err.value.code == "invalid_leaf_estimate"
    monkeypatch.setattr(value_mod, "load_value_model", lambda: None)
    with pytest.raises(DataError) as err:
        search_routes(PARACETAMOL, stock=FileStock(stock), model=DictSingleStepModel({}),
                      config=SearchConfig(leaf_estimate="learned", validate=False))
    assert err.value.code == "missing_data_file"
    # the default estimate needs no file and records which estimate ran
    res = search_routes(PARACETAMOL, stock=FileStock(stock), model=DictSingleStepModel({}),
                        config=SearchConfig(validate=False, time_limit=5))
    assert res.stats["config"]["leaf_estimate"] == "size"


def test_resume_accepts_records_written_before_a_search_config_field_existed(repo_script):
    ms = repo_script("benchmarks/multistep.py")
    current = {"time_limit": 60.0, "leaf_estimate": "size"}
    assert ms._same_setting("search_config", {"time_limit": 60.0}, current)
    # ... only when this run keeps the new field's default
    assert not ms._same_setting("search_config", {"time_limit": 60.0}, {**current, "leaf_estimate": "learned"})
    assert not ms._same_setting("search_config", {"time_limit": 30.0}, current)
    assert not ms._same_setting("search_config", {"time_limit": 60.0, "gone": 1}, current)
    assert ms._same_setting("time_limit", 60.0, 60.0) and not ms._same_setting("time_limit", 60.0, 30.0)

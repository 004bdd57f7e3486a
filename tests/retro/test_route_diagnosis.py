"""benchmarks/route_diagnosis.py: locating a reference route in a finished search (toy model, no shared data)."""

from __future__ import annotations

import pytest

from molx_agent.retro.search import RetroStarSearch, SearchConfig
from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
AMINOPHENOL = "Nc1ccc(O)cc1"
AC2O = "CC(=O)OC(C)=O"
METHACETIN = "COc1ccc(NC(C)=O)cc1"
ANISIDINE = "COc1ccc(N)cc1"


@pytest.fixture(scope="module")
def diag(repo_script):
    return repo_script("benchmarks/route_diagnosis.py")


@pytest.fixture
def stock(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("\n".join([AC2O, AMINOPHENOL, ANISIDINE]) + "\n")
    return FileStock(path)


MODEL = {
    # one-step route (anhydride + aminophenol) and a two-step one through the methyl ether
    PARACETAMOL: [([AC2O, AMINOPHENOL], 0.6, "N-acetylation"), ([METHACETIN], 0.3, "O-demethylation")],
    METHACETIN: [([AC2O, ANISIDINE], 0.8, "N-acetylation")],
}


def _search(stock, **cfg):
    config = SearchConfig(time_limit=30, max_expansions=100, validate=False, n_routes=5, stop_at_n_routes=False)
    for k, v in cfg.items():
        setattr(config, k, v)
    search = RetroStarSearch(PARACETAMOL, DictSingleStepModel(MODEL), stock, config)
    search.run()
    return search


def _two_step_reference(diag):
    keys = diag._Keys()
    return keys, frozenset({keys.step(PARACETAMOL, [METHACETIN]), keys.step(METHACETIN, [AC2O, ANISIDINE])})


def test_a_longer_reference_route_is_ranked_out_of_a_short_list_and_matched_in_a_longer_one(diag, stock):
    keys, ref = _two_step_reference(diag)
    search = _search(stock)
    one = diag.locate_reference(search, ref, keys, n_routes=1)
    assert one["category"] == "ranked_out"
    assert one["rank_by_steps"] == one["rank_by_cost"] == one["rank_by_score"] == 2  # the one-step route is shorter and cheaper
    assert one["n_in_tree"] == one["n_solved_in_tree"] == one["n_reference_steps"] == 2
    assert diag.locate_reference(search, ref, keys, n_routes=2)["category"] == "matched"


def test_the_one_step_route_is_matched_first(diag, stock):
    keys = diag._Keys()
    ref = frozenset({keys.step(PARACETAMOL, [AC2O, AMINOPHENOL])})
    located = diag.locate_reference(_search(stock), ref, keys, n_routes=1)
    assert located["category"] == "matched" and located["rank_by_steps"] == 1


def test_a_step_whose_product_was_never_expanded_is_not_in_the_tree(diag, stock):
    keys, ref = _two_step_reference(diag)
    located = diag.locate_reference(_search(stock, max_expansions=1), ref, keys, n_routes=10)
    assert located["category"] == "not_in_tree"
    assert located["n_in_tree"] == 1 and located["rank_by_steps"] is None


def test_a_step_in_the_tree_whose_precursors_are_not_solved(diag, tmp_path):
    keys, ref = _two_step_reference(diag)
    path = tmp_path / "stock.smi"
    path.write_text(AC2O + "\n")  # neither amine is in stock: nothing is solved
    located = diag.locate_reference(_search(FileStock(path)), ref, keys, n_routes=10)
    assert located["category"] == "not_solved_in_tree"
    assert located["n_in_tree"] == 2 and located["n_solved_in_tree"] == 0


def test_a_step_the_model_does_not_propose_comes_first(diag, stock):
    keys, ref = _two_step_reference(diag)
    search = _search(stock)
    proposed = {step: True for step in ref}
    assert diag.locate_reference(search, ref, keys, n_routes=2, proposed=proposed)["category"] == "matched"
    proposed[keys.step(METHACETIN, [AC2O, ANISIDINE])] = False
    located = diag.locate_reference(search, ref, keys, n_routes=2, proposed=proposed)
    assert located["category"] == "not_proposed" and located["n_proposed"] == 1


def test_proposed_steps_reads_a_retrocast_tree(diag):
    keys = diag._Keys()
    tree = {"smiles": PARACETAMOL, "synthesis_step": {"reactants": [
        {"smiles": METHACETIN, "synthesis_step": {"reactants": [{"smiles": AC2O}, {"smiles": ANISIDINE}]}}]}}
    model = DictSingleStepModel({PARACETAMOL: MODEL[PARACETAMOL]})  # the second step is not proposed
    got = diag.proposed_steps(model, tree, 50, keys)
    assert got == {keys.step(PARACETAMOL, [METHACETIN]): True, keys.step(METHACETIN, [AC2O, ANISIDINE]): False}
    assert diag.proposed_steps(model, tree, 1, keys)[keys.step(PARACETAMOL, [METHACETIN])] is False  # top-1 only


def test_proposed_steps_compare_leaves_as_the_stock_lists_them(diag, tmp_path):
    # the reference writes cyanide as HCN (as the stock does); the template asks for the anion
    keys = diag._Keys()
    product, chloride = "N#CCc1ccccc1", "ClCc1ccccc1"
    tree = {"smiles": product, "synthesis_step": {"reactants": [{"smiles": "C#N"}, {"smiles": chloride}]}}
    model = DictSingleStepModel({product: [(["[C-]#N", chloride], 0.8, "cyanation")]})
    path = tmp_path / "stock.smi"
    path.write_text(f"C#N\n{chloride}\n")
    want = keys.step(product, ["C#N", chloride])
    assert diag.proposed_steps(model, tree, 50, keys)[want] is False
    assert diag.proposed_steps(model, tree, 50, keys, FileStock(path))[want] is True


def test_summary_counts_every_target(diag):
    recs = [{"route_length": 2, "category": "matched", "solved": True},
            {"route_length": 2, "category": "ranked_out", "solved": True},
            {"route_length": 5, "category": "not_proposed", "solved": False},
            {"route_length": 5, "category": "error"}]
    s = diag.summarize(recs)
    assert s["n_targets"] == 4 and s["solved"] == 2
    assert s["categories"]["matched"] == 1 and s["categories"]["error"] == 1 and s["categories"]["not_in_tree"] == 0
    assert s["by_route_length"][5]["not_proposed"] == 1


def test_bad_arguments_exit_2(diag, tmp_path, capsys):
    assert diag.main(["--ids-file", str(tmp_path / "missing.txt")]) == 2
    assert "missing file" in capsys.readouterr().err

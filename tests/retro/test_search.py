"""Retro*-style search over a table-driven toy model (the real model is exercised in the CLI tests)."""

from __future__ import annotations

import dataclasses
import math
import time

import pytest

from molx_agent.errors import ChemistryError, ValidationError
from molx_agent.retro import search as search_mod
from molx_agent.retro.search import SearchCaches, SearchConfig, search_routes
from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
AMINOPHENOL = "Nc1ccc(O)cc1"
NITROPHENOL = "O=[N+]([O-])c1ccc(O)cc1"
PHENOL = "Oc1ccccc1"
AC2O = "CC(=O)OC(C)=O"
ACCL = "CC(=O)Cl"
ACOH = "CC(=O)O"


@pytest.fixture
def paracetamol_model():
    return DictSingleStepModel({
        PARACETAMOL: [
            ([AC2O, AMINOPHENOL], 0.6, "N-acetylation (anhydride)"),
            ([ACCL, AMINOPHENOL], 0.3, "N-acetylation (acid chloride)"),
            ([PARACETAMOL, "C"], 0.05, "nonsense self step"),  # target as its own precursor
            ([ACOH, AMINOPHENOL], 0.02, "amide coupling"),
        ],
        AMINOPHENOL: [([NITROPHENOL], 0.7, "nitro reduction"), ([PARACETAMOL], 0.2, "amide hydrolysis")],
        NITROPHENOL: [([PHENOL], 0.5, "nitration")],
    })


@pytest.fixture
def phenol_stock(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("\n".join([AC2O, ACCL, ACOH, PHENOL]) + "\n")
    return FileStock(path)


@pytest.fixture
def no_validation():
    return SearchConfig(time_limit=30, max_expansions=100, validate=False, n_routes=5)


def _reactions(graph):
    return [(graph.molecule_nodes[r.product_node].smiles, sorted(graph.molecule_nodes[x].smiles for x in r.reactant_nodes))
            for r in graph.reaction_nodes]


def test_finds_routes_to_stock_ranked_by_steps_then_cost(paracetamol_model, phenol_stock, no_validation):
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=no_validation)
    assert res.solved and res.routes and res.partial_route is None
    best = res.routes[0]
    assert best.n_steps == 3
    assert _reactions(best)[0] == (PARACETAMOL, sorted([AC2O, AMINOPHENOL]))
    keys = [(g.n_steps, g.metadata["total_cost"]) for g in res.routes]
    assert keys == sorted(keys)
    assert len(res.routes) == 3  # Ac2O, AcCl, AcOH variants of the same 3-step route
    for graph in res.routes:
        assert graph.is_complete()
        for leaf in graph.leaves():
            assert leaf.availability["available"] is True
            assert leaf.availability["source"] == "stock.smi"
            assert leaf.role == "terminal"
        assert graph.metadata["solved"] is True
    step = best.reaction_nodes[0]
    assert step.template_evidence.template_name == "N-acetylation (anhydride)"
    assert step.score == pytest.approx(0.6)
    assert step.reaction_smiles.endswith(">>" + PARACETAMOL)


def test_never_uses_the_target_or_an_ancestor_as_precursor(paracetamol_model, phenol_stock, no_validation):
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=no_validation)
    for graph in res.routes:
        for _product, reactants in _reactions(graph):
            assert PARACETAMOL not in reactants
    assert res.stats["rejected"]["cycle"] >= 2  # target self-step and aminophenol -> paracetamol


def test_is_deterministic_for_the_same_limits(paracetamol_model, phenol_stock):
    cfg = SearchConfig(time_limit=60, max_expansions=3, validate=False, n_routes=10)
    first = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=cfg)
    second = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=cfg)
    assert first.n_expansions == second.n_expansions == 3
    assert [g.to_dict() for g in first.routes] == [g.to_dict() for g in second.routes]
    assert first.stopped_by == "max_expansions"


def test_max_depth_gives_a_partial_route_with_reasons(paracetamol_model, phenol_stock):
    cfg = SearchConfig(max_depth=2, validate=False)
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=cfg)
    assert not res.solved and res.routes == []
    partial = res.partial_route
    assert partial is not None and partial.metadata["solved"] is False
    pending = [n for n in partial.leaves() if n.role == "pending"]
    assert [n.smiles for n in pending] == [NITROPHENOL]
    assert "max_depth 2" in pending[0].availability["reason"]
    assert res.stopped_by == "exhausted"
    assert any("max_depth" in r for r in res.reasons)
    assert res.best_route is partial


def test_unknown_chemistry_is_unsolved_not_an_error(phenol_stock, no_validation):
    res = search_routes("CCCCCCCCCC(=O)NC1CCCCC1", stock=phenol_stock, model=DictSingleStepModel({}), config=no_validation)
    assert not res.solved
    assert res.n_expansions == 1
    assert any("no template applies" in r for r in res.reasons)
    assert res.partial_route.n_steps == 0


def test_forward_validation_hard_gates_reject_steps(monkeypatch, paracetamol_model, phenol_stock):
    calls = []

    def fake_validate(precursors, product, reaction_type=None, template_id=None, mapped_reaction=None):
        calls.append((tuple(precursors), product))
        if AC2O in precursors:
            return {"ok": True, "pass": False, "feasibility_score": 0.1, "hard_fail_reasons": ["atom balance"]}
        return {"ok": True, "pass": True, "feasibility_score": 0.9, "hard_fail_reasons": None}

    monkeypatch.setattr(search_mod, "_forward_validator", lambda: fake_validate)
    cfg = SearchConfig(validate=True, n_routes=5)
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=cfg)
    assert res.solved
    first = _reactions(res.routes[0])[0]
    assert first == (PARACETAMOL, sorted([ACCL, AMINOPHENOL]))
    for graph in res.routes:
        assert all(AC2O not in reactants for _, reactants in _reactions(graph))
        assert all(r.forward_validation["pass"] for r in graph.reaction_nodes)
    assert res.stats["rejected"]["validation"] == 1
    assert len(calls) == len(set(calls))  # each step validated once
    assert res.stats["n_validations"] == len(calls) and res.stats["validation_time_s"] >= 0.0


def test_model_predictions_are_cached_per_molecule(paracetamol_model, phenol_stock, no_validation):
    caches = SearchCaches()
    first = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=no_validation,
                          caches=caches)
    n = paracetamol_model.n_calls
    assert n == len(caches.predictions)
    # the search reports its own model calls and the time they took
    assert first.stats["n_model_calls"] == n >= 3 and first.stats["model_time_s"] >= 0.0
    second = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=no_validation,
                           caches=caches)
    assert paracetamol_model.n_calls == n
    assert second.stats["n_model_calls"] == 0 and second.stats["model_time_s"] == 0.0  # every table was cached


def test_progress_callback_reports_each_expansion(paracetamol_model, phenol_stock, no_validation):
    seen = []
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=no_validation,
                        progress=seen.append)
    assert [p["n_expansions"] for p in seen] == list(range(1, res.n_expansions + 1))
    assert seen[-1]["solved"] is True


def test_n_routes_stops_the_search_early(paracetamol_model, phenol_stock):
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model,
                        config=SearchConfig(validate=False, n_routes=1, stop_at_n_routes=True))
    assert res.stopped_by == "n_routes" and len(res.routes) == 1
    # by default the search keeps going to its limits and returns the best routes, not the first ones
    full = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model,
                         config=SearchConfig(validate=False, n_routes=1))
    assert full.stopped_by == "exhausted" and len(full.routes) == 1


def test_target_in_stock_is_still_expanded(paracetamol_model, tmp_path, no_validation):
    path = tmp_path / "s.smi"
    path.write_text("\n".join([PARACETAMOL, AC2O, AMINOPHENOL]) + "\n")
    res = search_routes(PARACETAMOL, stock=FileStock(path), model=paracetamol_model, config=no_validation)
    assert res.solved and res.routes[0].n_steps == 1
    assert any("target itself is in stock" in r for r in res.reasons)
    target = res.routes[0].molecule_nodes[res.routes[0].target_id]
    assert target.availability["available"] is True


class _EndlessModel:
    """Every molecule has one new, larger precursor: the search never ends by itself."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def predict(self, product_smiles, top_k=50):
        from molx_agent.retro.toy_model import ToyPrediction

        time.sleep(self.delay)
        return [ToyPrediction([product_smiles + "C"], 0.5, "t", "homologation")]


def test_time_limit_stops_the_search(phenol_stock):
    cfg = SearchConfig(time_limit=0.3, max_expansions=10_000, max_depth=10_000, validate=False)
    res = search_routes("CCO", stock=phenol_stock, model=_EndlessModel(0.01), config=cfg)
    assert res.stopped_by == "time_limit" and not res.solved
    assert res.time_s < 2.0  # generous: this is not a speed test
    assert any("time limit" in r for r in res.reasons)


def test_max_expansions_stops_the_search(phenol_stock):
    cfg = SearchConfig(max_expansions=5, max_depth=100, validate=False)
    res = search_routes("CCO", stock=phenol_stock, model=_EndlessModel(0.0), config=cfg)
    assert res.n_expansions == 5 and res.stopped_by == "max_expansions"
    assert res.partial_route.n_steps == 5


def test_bad_targets_and_limits(paracetamol_model, phenol_stock):
    with pytest.raises(ChemistryError) as err:
        search_routes("C1CC(", stock=phenol_stock, model=paracetamol_model)
    assert err.value.code == "invalid_smiles" and err.value.value == "C1CC("
    with pytest.raises(ChemistryError):
        search_routes("", stock=phenol_stock, model=paracetamol_model)
    with pytest.raises(ValidationError):
        search_routes("CCO.Cl", stock=phenol_stock, model=paracetamol_model)
    with pytest.raises(ValidationError):
        search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, time_limit=0)


def test_result_to_dict_is_json_ready(paracetamol_model, phenol_stock, no_validation):
    import json

    res = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=no_validation)
    data = json.loads(json.dumps(res.to_dict()))
    assert data["solved"] is True and data["stock"] == "stock.smi"
    assert data["routes"][0]["target_smiles"] == PARACETAMOL
    cfg = res.stats["config"]  # the knobs that shape the search are recorded with its result
    assert (cfg["leaf_cost"], cfg["leaf_cost_base"], cfg["leaf_cost_per_atom"]) == (
        no_validation.leaf_cost, no_validation.leaf_cost_base, no_validation.leaf_cost_per_atom)


def test_validation_is_lazy_only_steps_relied_upon_are_validated(monkeypatch, tmp_path):
    calls = []

    def counting_validate(precursors, product, reaction_type=None, template_id=None, mapped_reaction=None):
        calls.append(tuple(precursors))
        return {"ok": True, "pass": True, "feasibility_score": 0.9, "hard_fail_reasons": None}

    monkeypatch.setattr(search_mod, "_forward_validator", lambda: counting_validate)
    stock = tmp_path / "s.smi"
    stock.write_text(f"{AC2O}\n{ACCL}\n{AMINOPHENOL}\n")
    model = DictSingleStepModel({PARACETAMOL: [([AC2O, AMINOPHENOL], 0.6, "a"), ([ACCL, AMINOPHENOL], 0.3, "b"),
                                               (["CC(=O)Br", AMINOPHENOL], 0.2, "c")]})
    res = search_routes(PARACETAMOL, stock=FileStock(stock), model=model,
                        config=SearchConfig(n_routes=1, stop_at_n_routes=True))
    assert res.solved and len(res.routes) == 1
    assert calls == [tuple(sorted([AC2O, AMINOPHENOL]))]
    assert res.routes[0].reaction_nodes[0].forward_validation["pass"] is True


def test_steps_are_validated_with_the_proposing_templates_atom_map(tmp_path):
    # an intramolecular N-alkylation (piperazinone ring closure) that the environment alignment misreads
    precursor, product = "CN(CCCl)C(=O)CNC1CNC1", "CN1CCN(C2CNC2)CC1=O"
    mapped = ("[CH3:1][N:2]([CH2:3][CH2:4][Cl:13])[C:11](=[O:12])[CH2:10][NH:5][CH:6]1[CH2:7][NH:8][CH2:9]1"
              ">>[CH3:1][N:2]1[CH2:3][CH2:4][N:5]([CH:6]2[CH2:7][NH:8][CH2:9]2)[CH2:10][C:11]1=[O:12]")
    stock = tmp_path / "s.smi"
    stock.write_text(precursor + "\n")
    cfg = SearchConfig(n_routes=1, time_limit=30)
    with_map = DictSingleStepModel({product: [([precursor], 0.5, "N-alkylation", "alkylation", mapped)]})
    res = search_routes(product, stock=FileStock(stock), model=with_map, config=cfg)
    assert res.solved
    check = res.routes[0].reaction_nodes[0].forward_validation
    assert check["pass"] is True and check["steps"]["mcs_alignment"]["source"] == "atom_maps"
    without_map = DictSingleStepModel({product: [([precursor], 0.5, "N-alkylation", "alkylation")]})
    res = search_routes(product, stock=FileStock(stock), model=without_map, config=cfg)
    assert not res.solved and res.stats["rejected"]["validation"] == 1


class _FailingModel:
    def predict(self, product_smiles, top_k=50):
        raise RuntimeError("template crashed")


def test_a_model_failure_is_a_recorded_dead_end(phenol_stock, no_validation):
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=_FailingModel(), config=no_validation)
    assert not res.solved
    assert res.stats["model_errors"] == {PARACETAMOL: "RuntimeError: template crashed"}
    assert any("single-step model failed" in r for r in res.reasons)


def test_search_can_continue_past_n_routes_and_rank_by_cost(paracetamol_model, phenol_stock):
    early = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model,
                          config=SearchConfig(validate=False, n_routes=1, stop_at_n_routes=True))
    full = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model,
                         config=SearchConfig(validate=False, n_routes=1, stop_at_n_routes=False))
    assert early.stopped_by == "n_routes" and full.stopped_by == "exhausted"
    assert full.n_expansions >= early.n_expansions
    by_cost = search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model,
                            config=SearchConfig(validate=False, rank_by="cost"))
    costs = [g.metadata["total_cost"] for g in by_cost.routes]
    assert costs == sorted(costs)
    with pytest.raises(ValidationError):
        search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model, config=SearchConfig(rank_by="x"))


def test_a_leaf_is_written_as_the_stock_lists_it(tmp_path):
    # the template asks for cyanide as the bare anion; the stock sells it as HCN: the route buys C#N, and the
    # step is validated (and keeps its mapped reaction) as the template wrote it
    product = "N#CCc1ccccc1"
    mapped = ("[CH2:3]([c:4]1[cH:5][cH:6][cH:7][cH:8][cH:9]1)[Br:10].[N:1]#[C-:2]"
              ">>[N:1]#[C:2][CH2:3][c:4]1[cH:5][cH:6][cH:7][cH:8][cH:9]1")
    model = DictSingleStepModel({product: [(["[C-]#N", "BrCc1ccccc1"], 0.8, "cyanation", "c_c_coupling", mapped),
                                           (["C#N", "BrCc1ccccc1"], 0.1, "cyanation (HCN)")]})
    stock = tmp_path / "s.smi"
    stock.write_text("C#N\nBrCc1ccccc1\n")
    res = search_routes(product, stock=FileStock(stock), model=model, config=SearchConfig(n_routes=5, time_limit=30))
    assert res.solved and len(res.routes) == 1  # the HCN proposal is the same route, not a second one
    graph = res.routes[0]
    leaves = {n.smiles: n for n in graph.molecule_nodes.values() if n.role == "terminal"}
    assert set(leaves) == {"C#N", "BrCc1ccccc1"}
    assert leaves["C#N"].availability["reacts_as"] == "[C-]#N"
    assert "reacts_as" not in leaves["BrCc1ccccc1"].availability
    step = graph.reaction_nodes[0]
    assert step.forward_validation["pass"] is True and step.forward_validation["steps"]["mcs_alignment"]["source"] == "atom_maps"
    assert "[C-:2]" in step.mapped_reaction


# -- a molecule solved in one branch is solved where it recurs -----------------------------------------------
SHARED = "CCCCCCO"  # X: solved by a three-step chain X -> Y -> Z -> S
CHAIN_Y, CHAIN_Z, CHAIN_S = "CCCCCC=O", "CCCCCC(=O)O", "CCCCCC(=O)OC"
T_A, T_B, T_M = "CCO", "CCCO", "CCCCCCOCCCC"  # A and B are stock reagents, M an intermediate


def _twin_model(with_detour: bool):
    table = {
        "CCCCCCOCC": [([T_A, SHARED], 0.5, "route via A"), ([T_B, SHARED], 0.4, "route via B")],
        SHARED: [([CHAIN_Y], 0.9, "reduction")],
        CHAIN_Y: [([CHAIN_Z], 0.9, "reduction")],
        CHAIN_Z: [([CHAIN_S], 0.9, "hydrolysis")],
    }
    if with_detour:  # the second route reaches X one level deeper
        table["CCCCCCOCC"] = [([T_A, SHARED], 0.5, "route via A"), ([T_M], 0.4, "via M")]
        table[T_M] = [([T_B, SHARED], 0.9, "route via B")]
    return DictSingleStepModel(table)


@pytest.fixture
def twin_stock(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("\n".join([T_A, T_B, CHAIN_S]) + "\n")
    return FileStock(path)


def test_a_molecule_solved_in_one_branch_is_solved_at_once_where_it_recurs(twin_stock):
    runs = {}
    for reuse in (True, False):
        model = _twin_model(with_detour=False)
        cfg = SearchConfig(time_limit=30, max_expansions=100, validate=False, n_routes=2, reuse_solved=reuse,
                           leaf_cost_base=0.0, leaf_cost_per_atom=0.0)  # the constant leaf estimate of the comment
        runs[reuse] = (search_routes("CCCCCCOCC", stock=twin_stock, model=model, config=cfg), model.n_calls)
    (on, calls_on), (off, calls_off) = runs[True], runs[False]
    for res in (on, off):
        assert res.solved and len(res.routes) == 2
        assert sorted(r.n_steps for r in res.routes) == [4, 4]
    assert [_reactions(r) for r in on.routes] == [_reactions(r) for r in off.routes]
    # Both occurrences of X are expanded before Z solves the first branch (costs: A branch 0.79 + 1 per open
    # leaf, B branch 1.02 + 1); the second Y, once selected, is expanded along the first one's route with the
    # Z under it: one selection instead of two
    assert on.stats["n_replicated"] == 2 and off.stats["n_replicated"] == 0
    assert (on.n_expansions, off.n_expansions) == (6, 7)
    assert calls_on == calls_off == 4  # one model call per molecule either way


def test_a_solved_twin_route_that_does_not_fit_under_max_depth_is_not_completed(twin_stock):
    for max_depth, n_routes in ((4, 1), (5, 2)):
        cfg = SearchConfig(time_limit=30, max_expansions=100, validate=False, n_routes=2, max_depth=max_depth,
                           stop_at_n_routes=False)
        res = search_routes("CCCCCCOCC", stock=twin_stock, model=_twin_model(with_detour=True), config=cfg)
        assert len(res.routes) == n_routes, max_depth
        assert all(r.n_steps <= max_depth for r in res.routes)
        if n_routes == 2:
            assert res.stats["n_replicated"] >= 1


@pytest.mark.parametrize("twin_values", [True, False])
def test_a_new_leaf_expanded_elsewhere_starts_from_that_value(twin_stock, twin_values):
    import math

    from molx_agent.retro.search import RetroStarSearch

    model = DictSingleStepModel({
        "CCCCCCOCC": [([T_A, SHARED], 0.5, "route via A"), ([T_M], 0.4, "via M")],
        T_M: [([T_B, SHARED], 0.9, "route via B")],
        SHARED: [([CHAIN_Y], 0.01, "an unlikely step")],  # X expanded: 0.01 step + open Y = 4.71 + 1
    })
    cfg = SearchConfig(validate=False, twin_values=twin_values, reuse_solved=False, leaf_cost_base=0.0,
                       leaf_cost_per_atom=0.0)
    search = RetroStarSearch("CCCCCCOCC", model, twin_stock, cfg)
    search.expand(search.root, math.inf)
    first_x = next(c for c in search.root.reactions[0].children if c.smiles == SHARED)
    search.expand(first_x, math.inf)
    assert first_x.value == pytest.approx(-math.log(0.01) + cfg.step_penalty + cfg.leaf_cost)
    m = search.root.reactions[1].children[0]
    search.expand(m, math.inf)
    second_x = next(c for c in m.reactions[0].children if c.smiles == SHARED)
    assert not second_x.expanded
    assert second_x.value == pytest.approx(first_x.value if twin_values else cfg.leaf_cost)


def test_past_the_confirmation_deadline_only_routes_of_validated_steps_are_returned(paracetamol_model, phenol_stock):
    import math

    from molx_agent.retro.search import RetroStarSearch
    from molx_agent.retro.search_routes import route_reactions

    calls: list[str] = []

    def build():
        # reuse_solved=False: the tree is built by hand here, without copies of solved twins
        search = RetroStarSearch(PARACETAMOL, paracetamol_model, phenol_stock, SearchConfig(n_routes=5, reuse_solved=False))
        search.validator = lambda reactants, product, **kw: calls.append(product) or {"ok": True, "pass": True}
        stack = [search.root]
        while stack:  # expand the whole tree without selection: no step is validated yet
            node = stack.pop()
            if not node.in_stock and not node.expanded and node.value < math.inf:
                search.expand(node, math.inf)
                stack.extend(c for r in node.reactions for c in r.children)
        return search

    full = build().confirm_best(5)
    assert len(full) == 3 and calls  # anhydride, acid chloride, acid over nitro reduction and nitration
    calls.clear()
    search = build()
    assert search.root.solved and calls == []
    best = full[0]
    search.confirm_deadline = 0.0  # long past: nothing more is validated
    assert search.confirm_best(5) == [] and search.validation_cut and calls == []
    # the steps validated before the deadline still make routes
    first = search.root.reactions[0]  # Ac2O + 4-aminophenol, the anhydride route of the full confirmation
    chain = [first]
    node = next(c for c in first.children if not c.in_stock)
    while node is not None and not node.in_stock:
        rxn = node.reactions[0]
        chain.append(rxn)
        node = next((c for c in rxn.children if not c.in_stock), None)
    for rxn in chain:
        assert search.ensure_valid(rxn)
    cut = search.confirm_best(5)
    assert len(cut) == 1 and len(calls) == len(chain)
    assert {r.id for r in route_reactions(cut[0])} == {r.id for r in chain}
    assert cut[0][:2] == best[:2]  # the same steps and cost as the anhydride route



# -- size-aware leaf estimate ------------------------------------------------------------------------------------
SIZE_TARGET = "CCCCCCCCCCCCOC(=O)c1ccccc1"
SIZE_BIG = "CCCCCCCCCCCCOC(=O)c1ccccc1Br"  # 22 heavy atoms (the target has 21)
SIZE_SMALL = "CCCCO"  # 5 heavy atoms


def _size_model():
    return DictSingleStepModel({
        SIZE_TARGET: [([SIZE_BIG], 0.5, "debromination"), ([SIZE_SMALL, "O=C(Cl)c1ccccc1"], 0.4, "esterification")],
    })


def test_the_leaf_estimate_is_constant_by_default_and_grows_with_size_when_asked(twin_stock):
    from molx_agent.retro.search import RetroStarSearch

    plain = RetroStarSearch(SIZE_TARGET, _size_model(), twin_stock, SearchConfig(validate=False, leaf_cost_base=0.0,
                                                                                  leaf_cost_per_atom=0.0))
    assert plain.leaf_estimate(SIZE_BIG) == plain.leaf_estimate(SIZE_SMALL) == plain.config.leaf_cost
    sized = RetroStarSearch(SIZE_TARGET, _size_model(), twin_stock,
                            SearchConfig(validate=False, leaf_cost=1.0, leaf_cost_base=0.5, leaf_cost_per_atom=0.25))
    assert sized.leaf_estimate(SIZE_BIG) == pytest.approx(0.5 + 0.25 * 22)
    assert sized.leaf_estimate(SIZE_SMALL) == pytest.approx(0.5 + 0.25 * 5)
    assert sized.leaf_estimate("C") == pytest.approx(1.0)  # never below leaf_cost
    assert sized.root.value == pytest.approx(0.5 + 0.25 * 21)


@pytest.mark.parametrize(("per_atom", "first"), [(0.0, SIZE_BIG), (0.25, SIZE_SMALL)])
def test_a_size_aware_leaf_estimate_selects_the_smaller_open_precursor_first(tmp_path, per_atom, first):
    import math

    from molx_agent.retro.search import RetroStarSearch

    stock = tmp_path / "s.smi"
    stock.write_text("O=C(Cl)c1ccccc1\n")
    cfg = SearchConfig(validate=False, leaf_cost=1.0, leaf_cost_base=0.0, leaf_cost_per_atom=per_atom)
    search = RetroStarSearch(SIZE_TARGET, _size_model(), FileStock(stock), cfg)
    search.expand(search.root, math.inf)
    # constant estimate: 0.79 + 1 (big) < 1.02 + 1 (small); by size: 0.79 + 5.5 (big) > 1.02 + 1.25 (small)
    assert search.select().smiles == first


def test_search_routes_limits_default_to_the_config():
    """The function's keyword defaults are the CLI's and the MCP server's (SearchConfig): no second copy to drift."""
    import inspect

    params = inspect.signature(search_routes).parameters
    cfg = SearchConfig()
    for name in ("time_limit", "max_expansions", "max_depth", "n_routes"):
        assert params[name].default == getattr(cfg, name), name
    # the expansion cap is a safety bound; the time limit is what a default search spends
    assert cfg.max_expansions > 100 * cfg.time_limit


class _ModelWithView:
    """A model whose search view is another model (as the packaged model's ``for_search``)."""

    def __init__(self, full, view):
        self.full, self.view = full, view

    def for_search(self):
        return self.view

    def predict(self, product_smiles, top_k=50, *, deadline=None):
        return self.full.predict(product_smiles, top_k, deadline=deadline)


def _viewed_paracetamol_models():
    view = DictSingleStepModel({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.3, "N-acetylation (acid chloride)")],
        AMINOPHENOL: [([NITROPHENOL], 0.7, "nitro reduction")],
        NITROPHENOL: [([PHENOL], 0.5, "nitration")],
    })
    full = DictSingleStepModel({
        PARACETAMOL: [([AC2O, AMINOPHENOL], 0.9, "N-acetylation (anhydride)"),
                      ([ACCL, AMINOPHENOL], 0.5, "N-acetylation (acid chloride), full model")],
    })
    return full, view


def test_target_expansion_union_adds_the_full_models_steps_for_the_target_only(phenol_stock, no_validation):
    full, view = _viewed_paracetamol_models()
    model = _ModelWithView(full, view)
    # "search": the target is expanded by the search view alone; the full model is never called
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=model,
                        config=dataclasses.replace(no_validation, target_expansion="search"))
    assert res.solved and full.n_calls == 0
    assert {tuple(_reactions(g)[0][1]) for g in res.routes} == {tuple(sorted([ACCL, AMINOPHENOL]))}
    assert res.routes[0].reaction_nodes[0].score == pytest.approx(0.3)
    assert res.stats["config"]["target_expansion"] == "search" and res.stats["target_model"] is None
    # union (the default): the full model's steps join the target's expansion, each at the higher of the two scores
    assert SearchConfig().target_expansion == "union"
    # (rescore_routes 0: the final re-ranking, which calls the full model on the routes' other molecules, is tested apart)
    cfg = SearchConfig(time_limit=30, max_expansions=100, validate=False, n_routes=5, union_depth=1, rescore_routes=0)
    view_calls = view.n_calls
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=model, config=cfg)
    assert res.solved
    assert full.n_calls == 1  # the target only (union_depth 1): the intermediates are expanded by the search view
    first_steps = [(tuple(_reactions(g)[0][1]), g.reaction_nodes[0].score) for g in res.routes]
    assert first_steps[0] == (tuple(sorted([AC2O, AMINOPHENOL])), pytest.approx(0.9))
    assert (tuple(sorted([ACCL, AMINOPHENOL])), pytest.approx(0.5)) in first_steps
    assert res.stats["config"]["target_expansion"] == "union" and res.stats["target_model"]["name"] == "_ModelWithView"
    assert res.stats["n_model_calls"] == view.n_calls - view_calls + full.n_calls  # both models' calls count
    # the route payload (CLI --json, MCP, agent tools) names the model that joined the target's expansion
    from molx_agent.retro.payload import search_payload

    assert search_payload(res)["search_stats"]["target_model"]["name"] == "_ModelWithView"


def test_target_expansion_union_keeps_the_search_models_steps_when_the_full_model_fails(phenol_stock, no_validation):
    _, view = _viewed_paracetamol_models()
    model = _ModelWithView(_FailingModel(), view)
    cfg = SearchConfig(time_limit=30, max_expansions=100, validate=False, n_routes=5, target_expansion="union")
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=model, config=cfg)
    assert res.solved and res.routes[0].reaction_nodes[0].score == pytest.approx(0.3)


def test_target_expansion_must_be_known(paracetamol_model, phenol_stock):
    with pytest.raises(ValidationError) as err:
        search_routes(PARACETAMOL, stock=phenol_stock, model=paracetamol_model,
                      config=SearchConfig(target_expansion="everything", validate=False))
    assert err.value.code == "invalid_target_expansion"


def test_union_depth_two_gives_the_targets_precursors_the_full_models_steps_too(phenol_stock, no_validation):
    view = DictSingleStepModel({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.3, "N-acetylation (acid chloride)")],
        AMINOPHENOL: [([NITROPHENOL], 0.2, "nitro reduction")],
        NITROPHENOL: [([PHENOL], 0.5, "nitration")],
    })
    full = DictSingleStepModel({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.6, "N-acetylation, full model")],
        AMINOPHENOL: [([NITROPHENOL], 0.8, "nitro reduction, full model")],
        NITROPHENOL: [([PHENOL], 0.9, "nitration, full model")],
    })
    model = _ModelWithView(full, view)
    no_validation = dataclasses.replace(no_validation, rescore_routes=0)  # no final re-ranking (tested apart)
    # 1: the full model predicts for the target alone
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=model,
                        config=dataclasses.replace(no_validation, union_depth=1))
    assert res.solved and full.n_calls == 1
    assert [r.score for r in res.routes[0].reaction_nodes] == pytest.approx([0.6, 0.2, 0.5])
    # 2 (the default): the target and its precursors (aminophenol), not the molecules below them (nitrophenol)
    assert SearchConfig().union_depth == 2
    calls = full.n_calls
    res = search_routes(PARACETAMOL, stock=phenol_stock, model=model, config=no_validation)
    assert res.solved and full.n_calls - calls == 2
    assert [r.score for r in res.routes[0].reaction_nodes] == pytest.approx([0.6, 0.8, 0.5])
    assert res.stats["config"]["union_depth"] == 2
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValidationError) as err:
            search_routes(PARACETAMOL, stock=phenol_stock, model=model,
                          config=dataclasses.replace(no_validation, union_depth=bad))
        assert err.value.code == "invalid_union_depth"


# -- the final re-ranking of the best routes with the full model ------------------------------------------------------
BROMOPHENOL = "Oc1ccc(Br)cc1"


def _rerank_models(cut_short: bool = False):
    """The search view prefers aminophenol from nitrophenol (0.6) to the amination of 4-bromophenol (0.4); the full
    model does not propose the nitro route and rates the amination 0.9.  With ``cut_short`` the full model's table
    for aminophenol comes back cut short by the deadline."""
    from molx_agent.retro.single_step import PredictionList

    view = DictSingleStepModel({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.3, "N-acetylation (acid chloride)")],
        AMINOPHENOL: [([NITROPHENOL], 0.6, "nitro reduction"), ([BROMOPHENOL, "N"], 0.4, "amination")],
    })

    class Full(DictSingleStepModel):
        def predict(self, product_smiles, top_k=50, *, deadline=None):
            out = super().predict(product_smiles, top_k, deadline=deadline)
            return PredictionList(out, cut_short=cut_short and product_smiles == AMINOPHENOL)

    full = Full({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.3, "N-acetylation (acid chloride)")],
        AMINOPHENOL: [([BROMOPHENOL, "N"], 0.9, "amination, full model")],
    })
    return _ModelWithView(full, view), full


@pytest.fixture
def amination_stock(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("\n".join([ACCL, NITROPHENOL, BROMOPHENOL, "N"]) + "\n")
    return FileStock(path)


def _second_step(graph):
    return tuple(_reactions(graph)[1][1])


def test_final_routes_are_re_ranked_with_the_full_models_step_probabilities(amination_stock, no_validation):
    cfg = dataclasses.replace(no_validation, union_depth=1)  # aminophenol is expanded by the search view alone
    assert SearchConfig().rescore_routes == 50 and SearchConfig().rescore_weight == 0.5
    # off: the search's order (the nitro route, 0.6 against 0.4)
    model, full = _rerank_models()
    res = search_routes(PARACETAMOL, stock=amination_stock, model=model, config=dataclasses.replace(cfg, rescore_routes=0))
    assert [_second_step(g) for g in res.routes] == [(NITROPHENOL,), tuple(sorted([BROMOPHENOL, "N"]))]
    assert full.n_calls == 1 and res.stats["rescoring"] == {}
    assert "search_route_score" not in res.routes[0].metadata
    # on (the default): the nitro step, which the full model does not propose, counts at min_score: geometric mean
    # sqrt(0.6 x 0.001) = 0.024 against sqrt(0.4 x 0.9) = 0.6 for the amination, which now ranks first
    model, full = _rerank_models()
    res = search_routes(PARACETAMOL, stock=amination_stock, model=model, config=cfg)
    assert [_second_step(g) for g in res.routes] == [tuple(sorted([BROMOPHENOL, "N"])), (NITROPHENOL,)]
    assert full.n_calls == 2  # the target (the union) and aminophenol (for the re-ranking)
    info = res.stats["rescoring"]
    assert info["applied"] and info["reordered"] and info["routes"] == 2 and info["molecules"] == 2
    assert info["n_model_calls"] == 1  # the target's table came from the union's call
    first, second = res.routes
    # route scores in the search's units: the step costs change by -log of the ratio of the two probabilities
    assert first.metadata["route_score"] == pytest.approx(
        first.metadata["search_route_score"] + math.log(0.4) - math.log(math.sqrt(0.4 * 0.9)), abs=1e-3)
    assert second.metadata["route_score"] == pytest.approx(
        second.metadata["search_route_score"] + math.log(0.6) - math.log(math.sqrt(0.6 * 1e-3)), abs=1e-3)
    assert first.metadata["rank"] == 1 and first.metadata["route_score"] < second.metadata["route_score"]
    assert res.stats["config"]["rescore_routes"] == 50
    # each step says what the full model made of it; the route payload carries what the re-ranking did
    assert "full single-step model 0.9" in first.reaction_nodes[1].llm_decision.selection_reasoning
    assert "not proposed by the full single-step model" in second.reaction_nodes[1].llm_decision.selection_reasoning
    from molx_agent.retro.payload import search_payload

    assert search_payload(res)["search_stats"]["rescoring"]["reordered"] is True
    # weight 0: the search's probabilities alone, the search's order
    model, _ = _rerank_models()
    res = search_routes(PARACETAMOL, stock=amination_stock, model=model,
                        config=dataclasses.replace(cfg, rescore_weight=0.0))
    assert [_second_step(g) for g in res.routes][0] == (NITROPHENOL,)
    assert res.stats["rescoring"]["applied"] and not res.stats["rescoring"]["reordered"]


def test_re_ranking_keeps_the_search_order_when_the_full_model_is_cut_short(amination_stock, no_validation):
    model, _ = _rerank_models(cut_short=True)
    res = search_routes(PARACETAMOL, stock=amination_stock, model=model,
                        config=dataclasses.replace(no_validation, union_depth=1))
    assert [_second_step(g) for g in res.routes][0] == (NITROPHENOL,)
    info = res.stats["rescoring"]
    assert not info["applied"] and "did not fit in the time limit" in info["reason"]
    assert "search_route_score" not in res.routes[0].metadata


def test_re_ranking_covers_the_routes_whose_tables_fit(tmp_path, no_validation):
    """The tables are made route by route, best first: when the full model is cut short on the last route's
    intermediate, the routes before it are re-ranked if they are at least n_routes, else the search's order stands."""
    from molx_agent.retro.single_step import PredictionList

    ester, amine_ester = "CC(=O)Nc1ccc(OC(C)=O)cc1", "CC(=O)Oc1ccc(N)cc1"
    path = tmp_path / "stock.smi"
    path.write_text("\n".join([ACCL, NITROPHENOL, BROMOPHENOL, "N", amine_ester, "O"]) + "\n")
    stock = FileStock(path)
    view = DictSingleStepModel({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.3, "N-acetylation"), ([ester, "O"], 0.01, "ester hydrolysis")],
        AMINOPHENOL: [([NITROPHENOL], 0.6, "nitro reduction"), ([BROMOPHENOL, "N"], 0.4, "amination")],
        ester: [([ACCL, amine_ester], 0.5, "N-acetylation")],
    })

    class Full(DictSingleStepModel):
        def predict(self, product_smiles, top_k=50, *, deadline=None):
            out = super().predict(product_smiles, top_k, deadline=deadline)
            return PredictionList(out, cut_short=product_smiles == ester)

    def run(n_routes):
        full = Full({PARACETAMOL: [([ACCL, AMINOPHENOL], 0.3, "N-acetylation")],
                     AMINOPHENOL: [([BROMOPHENOL, "N"], 0.9, "amination, full model")]})
        return search_routes(PARACETAMOL, stock=stock, model=_ModelWithView(full, view),
                             config=dataclasses.replace(no_validation, union_depth=1, n_routes=n_routes))

    res = run(2)  # the ester route is third: the two aminophenol routes are re-ranked
    info = res.stats["rescoring"]
    assert info["applied"] and info["routes"] == 2 and info["pool"] == 3
    assert "2 of the 3 routes" in info["reason"]
    assert [_second_step(g) for g in res.routes] == [tuple(sorted([BROMOPHENOL, "N"])), (NITROPHENOL,)]
    res = run(3)  # three routes wanted, two covered: the search's order
    assert not res.stats["rescoring"]["applied"] and _second_step(res.routes[0]) == (NITROPHENOL,)
    assert len(res.routes) == 3


def test_re_ranking_needs_a_full_model_apart_from_the_search_model(amination_stock, no_validation):
    # one model (no search view): nothing to re-rank with, no extra call
    view = _rerank_models()[0].view
    res = search_routes(PARACETAMOL, stock=amination_stock, model=view, config=no_validation)
    assert res.stats["rescoring"] == {} and res.routes[0].metadata.get("search_route_score") is None


def test_re_ranked_routes_are_forward_validated(amination_stock, monkeypatch):
    # the amination ranks first after re-ranking, but its step fails validation: the nitro route is returned
    def validator(reactants, product, **kw):
        return {"hard_fail_reasons": ["test gate"]} if "Br" in ".".join(reactants) else {}

    monkeypatch.setattr(search_mod, "_forward_validator", lambda: validator)
    model, _ = _rerank_models()
    res = search_routes(PARACETAMOL, stock=amination_stock, model=model,
                        config=SearchConfig(time_limit=30, max_expansions=100, n_routes=5, union_depth=1))
    assert [_second_step(g) for g in res.routes] == [(NITROPHENOL,)]
    assert res.stats["rejected"]["validation"] >= 1


# -- selectivity warnings in the re-ranking: a route that needs a protection or another order ranks after a clean one
ATENOLOL = "CC(C)NCC(O)COc1ccc(CC(N)=O)cc1"
AMINO_CHLOROHYDRIN = "CC(C)NCC(O)CCl"  # isopropylamine opened epichlorohydrin first: its free NH is then alkylated too
HYDROXYPHENYLACETAMIDE = "NC(=O)Cc1ccc(O)cc1"
GLYCIDYL_ETHER = "NC(=O)Cc1ccc(OCC2CO2)cc1"  # the industrial order: the phenol's glycidyl ether, then the amine
ISOPROPYLAMINE = "CC(C)N"


def test_selectivity_warned_names_the_amine_kept_through_an_alkylation():
    from molx_agent.retro.judge import selectivity_warned

    assert selectivity_warned([AMINO_CHLOROHYDRIN, HYDROXYPHENYLACETAMIDE], ATENOLOL,
                              "Williamson Ether Synthesis (Alkyl Chloride)")
    assert not selectivity_warned([GLYCIDYL_ETHER, ISOPROPYLAMINE], ATENOLOL, "Epoxide Opening with Amine")


def test_re_ranking_costs_a_step_with_a_selectivity_warning(tmp_path, no_validation):
    path = tmp_path / "stock.smi"
    path.write_text("\n".join([AMINO_CHLOROHYDRIN, HYDROXYPHENYLACETAMIDE, GLYCIDYL_ETHER, ISOPROPYLAMINE]) + "\n")
    stock = FileStock(path)
    table = {ATENOLOL: [([AMINO_CHLOROHYDRIN, HYDROXYPHENYLACETAMIDE], 0.3, "Williamson Ether Synthesis (Alkyl Chloride)"),
                        ([GLYCIDYL_ETHER, ISOPROPYLAMINE], 0.2, "Epoxide Opening with Amine")]}

    def run(**kw):
        model = _ModelWithView(DictSingleStepModel(table), DictSingleStepModel(table))
        return search_routes(ATENOLOL, stock=stock, model=model,
                             config=dataclasses.replace(no_validation, union_depth=1, **kw))

    def firsts(res):
        return [tuple(_reactions(g)[0][1]) for g in res.routes]

    warned, clean = tuple(sorted([AMINO_CHLOROHYDRIN, HYDROXYPHENYLACETAMIDE])), tuple(sorted([GLYCIDYL_ETHER,
                                                                                                ISOPROPYLAMINE]))
    assert SearchConfig().selectivity_penalty == 1.5
    res = run()  # the default: the warned step costs 1.5 more, more than the 0.3 against 0.2 of the model
    assert firsts(res) == [clean, warned]
    assert res.stats["rescoring"]["selectivity_warned_steps"] == 1
    first, second = res.routes
    assert second.metadata["route_score"] - second.metadata["search_route_score"] == pytest.approx(1.5, abs=1e-3)
    assert first.metadata["route_score"] == pytest.approx(first.metadata["search_route_score"], abs=1e-3)
    assert "incompatible_group" in {i["code"] for i in second.metadata["route"]["issues"]}
    assert not {i["code"] for i in first.metadata["route"]["issues"]} & {"incompatible_group", "competing_reaction"}
    # off: the model's order
    res = run(selectivity_penalty=0.0)
    assert firsts(res) == [warned, clean]
    for bad in (-1.0, math.inf, math.nan, "1.5", True):
        with pytest.raises(ValidationError) as err:
            run(selectivity_penalty=bad)
        assert err.value.code == "invalid_selectivity_penalty"


def test_re_ranking_costs_an_aryl_nitrogen_taken_off_and_put_back(tmp_path, no_validation):
    # clonidine: the aniline brominated by Sandmeyer and the bromide aminated again (the route judgement's
    # amine_round_trip) against the aniline condensed once with 1-acetylimidazolidin-2-one (POCl3)
    from tests.chem.test_mechanism import ARYL_BROMIDE, CLONIDINE, CLONIDINE_AMINATION, CLONIDINE_SANDMEYER

    aniline, acetylurea, amidine = "Nc1c(Cl)cccc1Cl", "CC(=O)N1CCNC1=O", "NC1=NCCN1"
    path = tmp_path / "stock.smi"
    path.write_text("\n".join(["Br", aniline, acetylurea, amidine]) + "\n")
    table = {CLONIDINE: [([ARYL_BROMIDE, amidine], 0.6, "Buchwald-Hartwig Amination", "", CLONIDINE_AMINATION),
                         ([aniline, acetylurea], 0.1, "2-Arylaminoimidazoline (POCl3)")],
             ARYL_BROMIDE: [(["Br", aniline], 0.95, "Sandmeyer Bromination", "", CLONIDINE_SANDMEYER)]}

    def run(**kw):
        model = _ModelWithView(DictSingleStepModel(table), DictSingleStepModel(table))
        return search_routes(CLONIDINE, stock=FileStock(path), model=model,
                             config=dataclasses.replace(no_validation, union_depth=1, **kw))

    detour, direct = tuple(sorted([ARYL_BROMIDE, amidine])), tuple(sorted([aniline, acetylurea]))
    res = run()  # the round trip costs 1.5: more than its two steps' 0.6 x 0.95 gain over the one step's 0.1
    assert [tuple(_reactions(g)[0][1]) for g in res.routes] == [direct, detour]
    assert res.stats["rescoring"]["amine_round_trips"] == 1
    second = res.routes[1]
    assert second.metadata["route_score"] - second.metadata["search_route_score"] == pytest.approx(1.5, abs=1e-3)
    assert "amine_round_trip" in {i["code"] for i in second.metadata["route"]["issues"]}
    # with the penalty off the model's order stands and nothing is counted
    res = run(selectivity_penalty=0.0)
    assert [tuple(_reactions(g)[0][1]) for g in res.routes] == [detour, direct]
    assert res.stats["rescoring"]["amine_round_trips"] == 0


def test_riluzole_from_the_aniline_and_thiocyanate_buys_the_thiocyanate_salt(tmp_path, no_validation):
    # the Hugerschoff synthesis (G206) draws thiocyanic acid, N#CS, which no one buys: a stock that lists the
    # thiocyanate anion (KSCN) solves the step, and the route's leaf is the anion as listed
    riluzole, aniline = "Nc1nc2ccc(OC(F)(F)F)cc2s1", "Nc1ccc(OC(F)(F)F)cc1"
    table = {riluzole: [([aniline, "N#CS"], 0.4, "2-Aminobenzothiazole from Aniline (Thiocyanate, Br2)")]}
    path = tmp_path / "stock.smi"

    def run():
        model = _ModelWithView(DictSingleStepModel(table), DictSingleStepModel(table))
        return search_routes(riluzole, stock=FileStock(path), model=model,
                             config=dataclasses.replace(no_validation, union_depth=1))

    path.write_text(aniline + "\nN#C[S-]\n")
    res = run()
    assert res.solved
    assert sorted(n.smiles for n in res.routes[0].leaves()) == sorted([aniline, "N#C[S-]"])
    path.write_text(aniline + "\n")  # no thiocyanate: nothing to buy
    assert not run().solved


# -- starting materials that are only Bloom-filter hits in the re-ranking: a verified route of similar score first
METFORMIN = "CN(C)C(=N)NC(=N)N"
DIMETHYLGUANIDINE = "CN(C)C(=N)N"  # sold, but here only a Bloom-filter (probable) hit
METHYLISOTHIOUREA, DIMETHYLAMINE, DICYANDIAMIDE = "CSC(=N)N", "CNC", "N#CNC(=N)N"


def test_re_ranking_costs_a_route_with_a_bloom_filter_starting_material(tmp_path, no_validation):
    from molx_agent.retro.stock import CompositeStock
    from tests.retro.test_trust import BloomStock

    verified = tmp_path / "verified.smi"
    verified.write_text("\n".join([METHYLISOTHIOUREA, DIMETHYLAMINE, DICYANDIAMIDE]) + "\n")
    bloom = tmp_path / "bloom.smi"
    bloom.write_text(DIMETHYLGUANIDINE + "\n")
    table = {METFORMIN: [([DIMETHYLGUANIDINE, METHYLISOTHIOUREA], 0.6, "Guanidinylation (S-methylisothiourea)"),
                         ([DIMETHYLAMINE, DICYANDIAMIDE], 0.2, "Biguanide from an Amine and Dicyandiamide")]}

    def run(**kw):
        model = _ModelWithView(DictSingleStepModel(table), DictSingleStepModel(table))
        stock = CompositeStock([FileStock(verified), BloomStock(bloom)])
        return search_routes(METFORMIN, stock=stock, model=model,
                             config=dataclasses.replace(no_validation, union_depth=1, **kw))

    probable, clean = tuple(sorted([DIMETHYLGUANIDINE, METHYLISOTHIOUREA])), tuple(sorted([DIMETHYLAMINE,
                                                                                          DICYANDIAMIDE]))
    assert SearchConfig().probable_route_penalty == 1.0
    res = run()  # the Bloom-filter route costs 1.0 more: more than the model's 0.6 against 0.2 and its leaf cost
    assert [tuple(_reactions(g)[0][1]) for g in res.routes] == [clean, probable]
    assert res.stats["rescoring"]["probable_routes"] == 1
    first, second = res.routes
    assert {n.availability["tier"] for n in first.leaves()} == {"verified"}
    assert {n.availability["tier"] for n in second.leaves()} == {"verified", "probable"}
    assert first.metadata["route_score"] == pytest.approx(first.metadata["search_route_score"], abs=1e-3)
    assert second.metadata["route_score"] - second.metadata["search_route_score"] == pytest.approx(1.0, abs=1e-3)
    assert res.stats["config"]["probable_route_penalty"] == 1.0
    # off: the search's order (the probable leaf's own cost is not enough to outweigh 0.6 against 0.2)
    res = run(probable_route_penalty=0.0)
    assert [tuple(_reactions(g)[0][1]) for g in res.routes] == [probable, clean]
    assert res.stats["rescoring"]["probable_routes"] == 0
    for bad in (-1.0, math.inf, math.nan, "1", True):
        with pytest.raises(ValidationError) as err:
            run(probable_route_penalty=bad)
        assert err.value.code == "invalid_probable_route_penalty"


def test_route_leaves_lists_every_starting_material(paracetamol_model, phenol_stock):
    from molx_agent.retro.search import RetroStarSearch
    from molx_agent.retro.search_routes import kbest_routes, route_leaves, route_reactions

    search = RetroStarSearch(PARACETAMOL, paracetamol_model, phenol_stock, SearchConfig(n_routes=5, validate=False))
    stack = [search.root]
    while stack:  # expand the whole tree
        node = stack.pop()
        if not node.in_stock and not node.expanded and node.value < math.inf:
            search.expand(node, math.inf)
            stack.extend(c for r in node.reactions for c in r.children)
    entries = kbest_routes(search, 5)
    assert len(entries) >= 2
    for entry in entries:
        leaves = route_leaves(entry)
        made = {r.parent.smiles for r in route_reactions(entry)}
        used = [c.smiles for r in route_reactions(entry) for c in r.children]
        # every precursor no step of the route makes is bought, once per use
        assert sorted(m.smiles for m in leaves) == sorted(u for u in used if u not in made)
        assert leaves and all(m.in_stock for m in leaves)


# -- the selection's descent: one path along the kept events, the heap walk's order ---------------------------------
def _eager_select(search):
    """The descent as it was: every reaction of a visited molecule pushed at once (the reference order)."""
    import heapq

    inf = search_mod.INF
    if search.root.value == inf:
        return None
    heap = [(search.root.value, 0, search.root.id, search.root)]
    while heap:
        vt, kind, _, node = heapq.heappop(heap)
        if kind == 0:
            if node.in_stock:
                continue
            if not node.expanded:
                if node.value < inf:
                    return node
                continue
            for rxn in node.reactions:
                if rxn.value < inf:
                    heapq.heappush(heap, (vt - node.value + rxn.value, 1, rxn.id, rxn))
        else:
            if not search.ensure_valid(node):
                return False
            for child in node.children:
                if not child.in_stock and child.value < inf:
                    heapq.heappush(heap, (vt, 0, child.id, child))
    return None


def _alkane_splits(seed, tmp_path):
    """A branching toy search: alkane chains split into two or three shorter ones at seeded random scores, methane
    and ethane in stock."""
    import random

    rng = random.Random(seed)
    table = {}
    for n in range(4, 15):
        splits = [[("C" * a), ("C" * (n - a))] for a in range(1, n // 2 + 1)]
        splits += [["C" * a, "C" * b, "C" * (n - a - b)] for a in range(1, 4) for b in range(1, 4) if n - a - b > 0]
        table["C" * n] = [(parts, round(rng.uniform(0.01, 0.9), 4), f"split {n}") for parts in splits]
    stock = tmp_path / "stock.smi"
    stock.write_text("C\nCC\n")
    return DictSingleStepModel(table), FileStock(stock)


def test_selection_picks_what_pushing_every_reaction_picks(monkeypatch, tmp_path):
    model, stock = _alkane_splits(0, tmp_path)
    real = search_mod.RetroStarSearch._select_once
    checked = []

    def both(self):
        expected = _eager_select(self)
        got = real(self)
        assert got is expected
        checked.append(got)
        return got

    monkeypatch.setattr(search_mod.RetroStarSearch, "_select_once", both)
    res = search_routes("C" * 14, stock=stock, model=model,
                        config=SearchConfig(time_limit=60, max_expansions=120, validate=False, n_routes=5))
    assert res.solved and len(checked) >= 100


def _heap_walk_first_events(search, tol=1e-9):
    """The events the heap walk (every reaction pushed) meets first, without acting on them: ``("select", id)`` for
    an unexpanded molecule, ``("validate", id)`` for a step not yet validated, every one within ``tol`` of the
    smallest V_t (two sums of the same costs in another order may differ in the last bit)."""
    import heapq

    inf = search_mod.INF
    if search.root.value == inf:
        return set()
    heap = [(search.root.value, 0, search.root.id, search.root)]
    first, found = None, set()
    while heap:
        vt, kind, _, node = heapq.heappop(heap)
        if first is not None and vt > first + tol:
            break
        if kind == 0:
            if node.in_stock:
                continue
            if not node.expanded:
                if node.value < inf:
                    first = vt if first is None else first
                    found.add(("select", node.id))
                continue
            for rxn in node.reactions:
                if rxn.value < inf:
                    heapq.heappush(heap, (vt - node.value + rxn.value, 1, rxn.id, rxn))
        elif not node.validated:
            first = vt if first is None else first
            found.add(("validate", node.id))
        else:
            for child in node.children:
                if not child.in_stock and child.value < inf:
                    heapq.heappush(heap, (vt, 0, child.id, child))
    return found


def test_selection_with_validation_acts_on_the_cheapest_event_first(monkeypatch, tmp_path):
    """With lazy validation on (a toy judge failing about a third of the steps), every descent either validates a
    step or selects a molecule that the best-first heap walk over V_t would meet first (up to float ties), and the
    search's values stay those the heap walk reads (a dead step's event is gone)."""
    import zlib

    model, stock = _alkane_splits(1, tmp_path)

    def judge(self, reactants, product, pred):
        self.n_validations += 1
        fail = zlib.crc32(".".join(reactants).encode() + product.encode()) % 3 == 0
        return {"hard_fail_reasons": ["toy"]} if fail else {}

    monkeypatch.setattr(search_mod, "_forward_validator", lambda: (lambda *a, **k: {}))
    monkeypatch.setattr(search_mod.RetroStarSearch, "_validate", judge)
    real_select, real_valid = search_mod.RetroStarSearch._select_once, search_mod.RetroStarSearch.ensure_valid
    acted: list[tuple[str, int]] = []
    counts = {"select": 0, "validate": 0}

    def ensure_valid(self, rxn):
        if not rxn.validated and not rxn.dead:
            acted.append(("validate", rxn.id))
        return real_valid(self, rxn)

    def checked(self):
        expected = _heap_walk_first_events(self)
        acted.clear()
        got = real_select(self)
        event = ("select", got.id) if got not in (False, None) else (acted[0] if acted else None)
        assert (event is None) == (not expected)
        if event is not None:
            assert event in expected
            counts[event[0]] += 1
        return got

    monkeypatch.setattr(search_mod.RetroStarSearch, "ensure_valid", ensure_valid)
    monkeypatch.setattr(search_mod.RetroStarSearch, "_select_once", checked)
    res = search_routes("C" * 14, stock=stock, model=model,
                        config=SearchConfig(time_limit=60, max_expansions=120, n_routes=5))
    assert res.solved and res.stats["rejected"]["validation"] > 10
    assert counts["select"] >= 100 and counts["validate"] > 50


def test_precursors_no_one_can_isolate_are_rejected(phenol_stock, no_validation):
    # n5-06144's route: a ketone "from" a cyclopentyne by hydration, the cyclopentyne from an enamine
    target = "CCOC(=O)C1CC(=O)CC1N"
    model = DictSingleStepModel({
        target: [(["CCOC(=O)C1CC#CC1N"], 0.9, "alkyne hydration"), ([AC2O, PHENOL], 0.001, "nonsense")],
        "CCOC(=O)C1CC#CC1N": [([ACOH], 0.9, "anything")],
    })
    res = search_routes(target, stock=phenol_stock, model=model, config=no_validation)
    assert res.stats["rejected"]["strained"] == 1
    assert res.stats["rejection_examples"]["strained"] == ["CCOC(=O)C1CC#CC1N>>" + target]
    assert all("#" not in node.smiles for route in res.routes for node in route.molecule_nodes.values())

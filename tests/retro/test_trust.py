"""Trustworthy routes: purchasability tiers, the leaf policy, analog shortcuts, implausible steps, route ranking and
the confidence/issues every route carries (toy model, small stocks; no real model)."""

from __future__ import annotations

import math

import pytest

from molx_agent.retro.engine import RetroEngine
from molx_agent.retro.judge import is_analog_shortcut, judge_leaf, judge_route, reactive_kind, ring_skeleton
from molx_agent.retro.search import SearchConfig, search_routes
from molx_agent.retro.stock import CompositeStock, FileStock, canonical_smiles, check_availability
from molx_agent.retro.toy_model import DictSingleStepModel

NAPROXEN = "COc1ccc2cc([C@H](C)C(=O)O)ccc2c1"
BROMO_NAPROXEN = "COc1ccc2cc([C@H](C)C(=O)O)ccc2c1Br"
BROMO_METHOXYNAPHTHALENE = "COc1ccc2cc(Br)ccc2c1"
CHLOROPROPANOIC = "C[C@H](Cl)C(=O)O"
SALBUTAMOL = "CC(C)(C)NCC(O)c1ccc(O)c(CO)c1"
ARYLLITHIUM = "[Li]c1ccc(O)c(CO)c1"
AMINO_ALDEHYDE = "CC(C)(C)NCC=O"
BIG = "CCCCCCCCCCCCCCCCCCCCCCC(=O)O"  # 25 heavy atoms


class BloomStock(FileStock):
    """A file-backed stand-in for the ZINC Bloom filter: its hits are only ``probable``."""

    tier = "probable"

    def __init__(self, path):
        super().__init__(path, name="bloom")


def _file(tmp_path, name, smiles):
    path = tmp_path / name
    path.write_text("\n".join(smiles) + "\n")
    return path


@pytest.fixture
def passing_validation(monkeypatch):
    """Every step passes forward validation (the toy steps are not real chemistry; their judgement is not tested here)."""
    from molx_agent.retro import search as search_mod

    def validate(precursors, product, reaction_type=None, template_id=None, mapped_reaction=None):
        return {"ok": True, "pass": True, "feasibility_score": 0.9, "hard_fail_reasons": None}

    monkeypatch.setattr(search_mod, "_forward_validator", lambda: validate)


@pytest.fixture
def bloom(tmp_path):
    return BloomStock(_file(tmp_path, "bloom.smi", [BIG, "CCO", ARYLLITHIUM, BROMO_NAPROXEN]))


@pytest.fixture
def verified(tmp_path):
    return FileStock(_file(tmp_path, "verified.smi", [BROMO_METHOXYNAPHTHALENE, CHLOROPROPANOIC, AMINO_ALDEHYDE]))


def test_availability_records_carry_tiers(verified, bloom):
    stock = CompositeStock([verified, bloom])
    recs = {r["smiles"]: r for r in check_availability([BROMO_METHOXYNAPHTHALENE, "CCO", "CC1=CC(C)C(O)C1C", "C1CC"],
                                                        stock)}
    assert recs[BROMO_METHOXYNAPHTHALENE]["tier"] == "verified"
    assert recs["CCO"]["tier"] == "probable" and recs["CCO"]["false_positive_rate"] > 0
    assert recs["CC1=CC(C)C(O)C1C"]["tier"] in ("estimated", "unavailable") and recs["CC1=CC(C)C(O)C1C"]["estimated"]
    assert "error" in recs["C1CC"] and recs["C1CC"]["available"] is False


def test_a_verified_entry_wins_over_a_bloom_hit(tmp_path, bloom):
    both = FileStock(_file(tmp_path, "v.smi", ["CCO"]))
    assert CompositeStock([bloom, both]).tier_of("CCO") == (both.name, "verified")


def test_leaf_policy(verified, bloom):
    cfg = SearchConfig()
    stock = CompositeStock([verified, bloom])
    small = judge_leaf("CCO", stock, cfg)
    assert small["tier"] == "probable" and small["accept"] and 0 < small["cost"] < math.inf
    assert [i["code"] for i in small["issues"]] == ["probable_leaf"]
    big = judge_leaf(BIG, stock, cfg)
    assert big["tier"] == "probable" and not big["accept"] and "building-block" in big["reason"]
    lithium = judge_leaf(ARYLLITHIUM, stock, cfg)
    assert lithium["reactive"] == "organolithium" and not lithium["accept"]
    exact = judge_leaf(BROMO_METHOXYNAPHTHALENE, stock, cfg)
    assert exact["tier"] == "verified" and exact["accept"] and exact["cost"] == 0.0


def test_reactive_intermediates_are_recognised():
    assert reactive_kind("[Li]c1ccc(O)cc1") == "organolithium"
    assert reactive_kind("Cl[Zn]c1ccccc1") == "organozinc"
    assert reactive_kind("Br[Mg]c1ccccc1") == "organomagnesium (Grignard)"
    assert reactive_kind("N#[N+]c1ccccc1") == "diazonium salt"
    assert reactive_kind("[c-]1ccccc1") is not None
    assert reactive_kind("[C-]#N") is None and reactive_kind("[C-]#[O+]") is None
    assert reactive_kind("CC(=O)Nc1ccc(O)cc1") is None and reactive_kind("OB(O)c1ccccc1") is None


POMALIDOMIDE = "Nc1cccc2c1C(=O)N(C1CCC(=O)NC1=O)C2=O"
LENALIDOMIDE = "Nc1cccc2c1CN(C1CCC(=O)NC1=O)C2=O"


def test_analog_shortcut_definition():
    assert is_analog_shortcut(BROMO_NAPROXEN, NAPROXEN) is not None
    assert is_analog_shortcut("CN(C)CCOC(c1ccccc1)c1ccc(Br)cc1", "CN(C)CCOC(c1ccccc1)c1ccccc1") is not None
    # a real disconnection: same ring system but the other precursor brings the side chain
    assert is_analog_shortcut(BROMO_METHOXYNAPHTHALENE, NAPROXEN) is None
    assert is_analog_shortcut("Nc1ccc(O)cc1", "CC(=O)Nc1ccc(O)cc1") is None


@pytest.mark.parametrize("leaf, target, analog", [
    # a single-ring target's own synthesis from a building block that lacks part of it: no analog (2026-12-07 night:
    # pyrazinamide's and nicotinamide's ester routes were demoted, and a dehalogenation of a chloro analog led)
    ("COC(=O)c1cnccn1", "NC(=O)c1cnccn1", False),
    ("CCOC(=O)c1cccnc1", "NC(=O)c1cccnc1", False),
    ("COC(=O)c1ccncc1", "NNC(=O)c1ccncc1", False),
    ("CC(=O)c1ccc(CC(C)C)cc1", "CC(C)Cc1ccc(C(C)C(=O)O)cc1", False),
    # ... while a bought molecule holding the whole single-ring target is still one: an ester, a methyl ether, a
    # chloro analog; and a very near one that lacks an atom (the acid's alpha-methyl, Tanimoto 0.60)
    ("CCOC(=O)C(C)c1ccc(CC(C)C)cc1", "CC(C)Cc1ccc(C(C)C(=O)O)cc1", True),
    ("CC(=O)Nc1ccc(OC)cc1", "CC(=O)Nc1ccc(O)cc1", True),
    ("CC(C)Cc1ccc(C(C)C(=O)O)cc1Cl", "CC(C)Cc1ccc(C(C)C(=O)O)cc1", True),
    ("CC(C)Cc1ccc(CC(=O)O)cc1", "CC(C)Cc1ccc(C(C)C(=O)O)cc1", True),
    # a polycyclic target keeps the first floor (oxcarbazepine from its 10-hydroxy metabolite, Tanimoto 0.50)
    ("NC(=O)N1c2ccccc2CC(O)c2ccccc21", "NC(=O)N1c2ccccc2CC(=O)c2ccccc21", True),
])
def test_a_single_ring_target_needs_a_closer_analog_unless_the_bought_molecule_holds_it(leaf, target, analog):
    assert (is_analog_shortcut(leaf, target) is not None) is analog


def test_a_ring_carbonyl_reduced_on_a_bought_analog_is_an_analog_shortcut():
    """Lenalidomide "from" pomalidomide (one imide C=O reduced to CH2): the ring skeleton is the same once the ring
    carbonyl's oxygen is set aside, so the bought drug is a near analog (the first route of 2026-12-06)."""
    assert ring_skeleton(POMALIDOMIDE) == ring_skeleton(LENALIDOMIDE) == "c1ccc2c(c1)CN(C1CCCNC1)C2"
    assert is_analog_shortcut(POMALIDOMIDE, LENALIDOMIDE) is not None
    # the real disconnection keeps its precursors apart: 4-nitroisoindolin-1-one has another skeleton
    assert is_analog_shortcut("O=C1NCc2c1cccc2[N+](=O)[O-]", LENALIDOMIDE) is None
    # a 2-pyridone without its oxygen keeps its N-H (no Kekule form is needed): not the skeleton of pyridine
    assert ring_skeleton("O=c1cccc[nH]1") != ring_skeleton("c1ccncc1") and ring_skeleton("CCO") == ""


def _naproxen_model():
    return DictSingleStepModel({NAPROXEN: [
        ([BROMO_NAPROXEN], 0.6, "hydrodebromination"),
        ([BROMO_METHOXYNAPHTHALENE, CHLOROPROPANOIC], 0.05, "cross-coupling"),
    ]})


def test_an_analog_shortcut_ranks_after_a_real_disconnection_and_is_reported(verified, bloom):
    stock = CompositeStock([verified, bloom])
    # bromo-naproxen has 18 heavy atoms: a Bloom-filter-only leaf only under a looser limit than the default 15
    default = search_routes(NAPROXEN, stock=stock, model=_naproxen_model(), config=SearchConfig(validate=False))
    assert default.solved and len(default.routes) == 1
    assert BROMO_NAPROXEN not in {n.smiles for n in default.routes[0].leaves()}
    res = search_routes(NAPROXEN, stock=stock, model=_naproxen_model(),
                        config=SearchConfig(validate=False, probable_leaf_max_atoms=18))
    assert res.solved and len(res.routes) == 2
    first, second = res.routes
    assert sorted(n.smiles for n in first.leaves()) == sorted([BROMO_METHOXYNAPHTHALENE, CHLOROPROPANOIC])
    assert {n.availability["tier"] for n in first.leaves()} == {"verified"}
    shortcut = second.metadata["route"]
    assert shortcut["confidence"] == "low"
    assert "analog_shortcut" in {i["code"] for i in shortcut["issues"]}
    assert second.leaves()[0].availability["analog_of_target"] > 0.5
    assert "analog_shortcut" not in {i["code"] for i in first.metadata["route"]["issues"]}


def test_analog_shortcut_is_still_found_when_nothing_else_solves(bloom):
    model = DictSingleStepModel({NAPROXEN: [([BROMO_NAPROXEN], 0.6, "hydrodebromination")]})
    res = search_routes(NAPROXEN, stock=bloom, model=model,
                        config=SearchConfig(validate=False, probable_leaf_max_atoms=18))  # an 18-atom Bloom hit
    assert res.solved
    codes = {i["code"] for i in res.routes[0].metadata["route"]["issues"]}
    assert {"analog_shortcut", "probable_leaf"} <= codes


def test_a_functionalised_aryllithium_is_not_bought_from_a_bloom_filter(verified, bloom):
    model = DictSingleStepModel({SALBUTAMOL: [([ARYLLITHIUM, AMINO_ALDEHYDE], 0.5, "organolithium addition")]})
    res = search_routes(SALBUTAMOL, stock=CompositeStock([verified, bloom]), model=model,
                        config=SearchConfig(validate=False))
    assert not res.solved
    pending = [n for n in res.partial_route.leaves() if n.smiles == canonical_smiles(ARYLLITHIUM)][0]
    assert "reactive intermediate" in pending.availability.get("not_a_leaf_because", "")


def test_an_exact_stock_entry_of_a_reactive_reagent_is_a_leaf_with_an_issue(tmp_path, passing_validation):
    stock = FileStock(_file(tmp_path, "exact.smi", [ARYLLITHIUM, AMINO_ALDEHYDE]))
    model = DictSingleStepModel({SALBUTAMOL: [([ARYLLITHIUM, AMINO_ALDEHYDE], 0.5, "organolithium addition")]})
    res = search_routes(SALBUTAMOL, stock=stock, model=model, config=SearchConfig())
    assert res.solved
    route = res.routes[0].metadata["route"]
    assert route["confidence"] == "medium" and "reactive_leaf" in {i["code"] for i in route["issues"]}


def test_probable_leaves_are_not_free_and_can_be_refused(bloom, verified, passing_validation):
    model = DictSingleStepModel({"CCOC(C)=O": [(["CCO", "CC(=O)O"], 0.5, "esterification")]})
    stock = CompositeStock([FileStock(_file(verified.path.parent, "acid.smi", ["CC(=O)O"])), bloom])
    res = search_routes("CCOC(C)=O", stock=stock, model=model, config=SearchConfig())
    assert res.solved
    route = res.routes[0]
    assert route.metadata["route"]["confidence"] == "medium"
    assert route.metadata["total_cost"] > -math.log(0.5) + SearchConfig().step_penalty  # the probable leaf costs
    strict = search_routes("CCOC(C)=O", stock=stock, model=model,
                           config=SearchConfig(validate=False, allow_probable_leaves=False))
    assert not strict.solved


def test_an_implausible_step_is_used_only_when_nothing_better_solves(tmp_path):
    stock = FileStock(_file(tmp_path, "s.smi", ["CC(=O)Cl", "Nc1ccccc1", "CC(=O)O", "CCOC(C)=O"]))
    target = "CC(=O)Nc1ccccc1"
    only = DictSingleStepModel({target: [(["CCOC(C)=O", "Nc1ccccc1"], 0.0004, "aminolysis")]})
    res = search_routes(target, stock=stock, model=only, config=SearchConfig(validate=False))
    assert res.solved
    route = res.routes[0].metadata["route"]
    assert route["confidence"] == "low" and "implausible_step" in {i["code"] for i in route["issues"]}
    assert "plausibility floor" in res.routes[0].reaction_nodes[0].llm_decision.selection_reasoning
    better = DictSingleStepModel({target: [(["CCOC(C)=O", "Nc1ccccc1"], 0.0004, "aminolysis"),
                                           (["CC(=O)Cl", "Nc1ccccc1"], 0.01, "acylation")]})
    res = search_routes(target, stock=stock, model=better, config=SearchConfig(validate=False))
    assert [g.reaction_nodes[0].reaction_type for g in res.routes] == ["acylation", "aminolysis"]


def test_routes_are_ranked_by_route_score_not_step_count_first(tmp_path):
    stock = FileStock(_file(tmp_path, "s.smi", ["CC(=O)Cl", "Nc1ccccc1", "O=[N+]([O-])c1ccccc1"]))
    target = "CC(=O)Nc1ccccc1"
    model = DictSingleStepModel({target: [(["CC(=O)Cl", "Nc1ccccc1"], 0.002, "acylation (weak)"),
                                          (["CC(=O)Nc1ccccc1[N+](=O)[O-]"], 0.9, "denitration")],
                                 "CC(=O)Nc1ccccc1[N+](=O)[O-]": [(["CC(=O)Cl", "Nc1ccccc1[N+](=O)[O-]"], 0.9, "a")],
                                 "Nc1ccccc1[N+](=O)[O-]": [(["O=[N+]([O-])c1ccccc1"], 0.9, "amination")]})
    by_score = search_routes(target, stock=stock, model=model, config=SearchConfig(validate=False))
    by_steps = search_routes(target, stock=stock, model=model, config=SearchConfig(validate=False, rank_by="steps"))
    assert by_steps.routes[0].n_steps == 1
    assert by_score.routes[0].n_steps == 3  # three likely steps beat one step the model rates at 0.002
    scores = [g.metadata["route_score"] for g in by_score.routes]
    assert scores == sorted(scores)


def test_excluded_leaves_and_steps(tmp_path):
    stock = FileStock(_file(tmp_path, "s.smi", ["CC(=O)Cl", "Nc1ccccc1", "CC(=O)OC(C)=O"]))
    target = "CC(=O)Nc1ccccc1"
    model = DictSingleStepModel({target: [(["CC(=O)Cl", "Nc1ccccc1"], 0.5, "acyl chloride"),
                                          (["CC(=O)OC(C)=O", "Nc1ccccc1"], 0.4, "anhydride")]})
    res = search_routes(target, stock=stock, model=model, config=SearchConfig(validate=False, exclude_leaves=("ClC(C)=O",)))
    assert [g.reaction_nodes[0].reaction_type for g in res.routes] == ["anhydride"]
    res = search_routes(target, stock=stock, model=model,
                        config=SearchConfig(validate=False, exclude_steps=("Nc1ccccc1.CC(=O)OC(C)=O>>CC(=O)Nc1ccccc1",)))
    assert [g.reaction_nodes[0].reaction_type for g in res.routes] == ["acyl chloride"]
    assert res.stats["rejected"]["excluded"] == 1


def test_engine_is_the_one_door(tmp_path, verified, bloom):
    engine = RetroEngine(model=_naproxen_model(), stock=CompositeStock([verified, bloom]),
                         config=SearchConfig(validate=False))
    res = engine.search(NAPROXEN, time_limit=5)
    assert res.solved and res.stats["config"]["time_limit"] == 5
    judged = engine.judge_route(res.routes[0])
    assert judged == {**judged, "confidence": res.routes[0].metadata["route"]["confidence"]}
    assert engine.judge_leaf(BIG)["accept"] is False
    assert [r["tier"] for r in engine.availability([BROMO_METHOXYNAPHTHALENE, "CCO"])] == ["verified", "probable"]
    assert engine.predict(NAPROXEN, 1)[0].reaction_name == "hydrodebromination"
    assert engine.resolve_target("paracetamol") == ("CC(=O)Nc1ccc(O)cc1", "paracetamol")


def test_judge_route_on_an_unsolved_partial_route(bloom):
    res = search_routes(SALBUTAMOL, stock=bloom, model=DictSingleStepModel({}), config=SearchConfig(validate=False))
    judged = judge_route(res.partial_route)
    assert judged["verdict"] == "reject" and judged["confidence"] == "low"


def test_a_target_over_the_retro_size_limit_is_refused_before_any_work():
    from molx_agent.errors import ChemistryError

    with pytest.raises(ChemistryError) as err:
        search_routes("C" * 400, model=DictSingleStepModel({}))  # refused before the stock or model is touched
    assert err.value.code == "molecule_too_large"
    with pytest.raises(ChemistryError) as err:
        search_routes("CC O", model=DictSingleStepModel({}))
    assert err.value.code == "smiles_contains_whitespace"


class _CutList(list):
    cut_short = True


class _DeadlineModel:
    """Answers with a table cut short at the deadline, as the packaged model does past its deadline."""

    def __init__(self):
        self.deadlines = []

    def predict(self, product_smiles, top_k=50, *, deadline=None):
        self.deadlines.append(deadline)
        return _CutList([DictSingleStepModel({product_smiles: [(["CC(=O)Cl", "Nc1ccccc1"], 0.5, "acylation")]})
                         .predict(product_smiles)[0]])


def test_the_search_passes_its_deadline_and_never_shares_a_cut_short_table(tmp_path):
    from molx_agent.retro.search_types import SearchCaches

    stock = FileStock(_file(tmp_path, "s.smi", ["CC(=O)Cl", "Nc1ccccc1"]))
    model, caches = _DeadlineModel(), SearchCaches()
    res = search_routes("CC(=O)Nc1ccccc1", stock=stock, model=model, caches=caches,
                        config=SearchConfig(validate=False, time_limit=5))
    assert res.solved and model.deadlines and all(d is not None for d in model.deadlines)
    assert res.stats["n_predictions_cut_short"] == 1 and caches.predictions == {}


def _analog_chain(tmp_path, verified, coupling_score):
    """Naproxen two ways: 5-bromo-naproxen bought, esterified, debrominated and hydrolysed (no disconnection at all),
    or a cross-coupling the model scores ``coupling_score``; the stock and the model."""
    ester_br, ester = "CCOC(=O)[C@@H](C)c1ccc2c(Br)c(OC)ccc2c1", "CCOC(=O)[C@@H](C)c1ccc2cc(OC)ccc2c1"
    stock = CompositeStock([verified, FileStock(_file(tmp_path, "v2.smi", [BROMO_NAPROXEN, "CCO"]))])
    model = DictSingleStepModel({
        NAPROXEN: [([ester], 0.5, "ester hydrolysis"),
                   ([BROMO_METHOXYNAPHTHALENE, CHLOROPROPANOIC], coupling_score, "cross-coupling")],
        ester: [([ester_br], 0.6, "debromination")],
        ester_br: [([BROMO_NAPROXEN, "CCO"], 0.7, "esterification")],
    })
    return stock, model


def test_an_analog_bought_several_interconversions_away_is_still_an_analog_shortcut(tmp_path, verified):
    stock, model = _analog_chain(tmp_path, verified, 0.001)
    res = search_routes(NAPROXEN, stock=stock, model=model, config=SearchConfig(validate=False))
    assert res.solved and len(res.routes) == 2
    first, second = res.routes
    assert first.n_steps == 1 and second.n_steps == 3  # the real disconnection ranks first despite its low score
    assert "analog_shortcut" in {i["code"] for i in second.metadata["route"]["issues"]}
    assert second.metadata["route"]["confidence"] == "low" and second.metadata["rank"] == 2


def test_a_real_disconnection_joins_routes_that_all_buy_an_analog(tmp_path, verified):
    """When every route returned buys an analog of the target (at any depth), the best solved routes without one
    join them, first (``SearchConfig.clean_alternatives``): naproxen's five routes of 2026-12-06 all bought
    5-chloro-naproxen three interconversions away while the search had solved real disconnections."""
    stock, model = _analog_chain(tmp_path, verified, 0.02)
    real = sorted([BROMO_METHOXYNAPHTHALENE, CHLOROPROPANOIC])
    # one route asked for: the cheaper analog route alone would be returned; the real disconnection replaces it
    res = search_routes(NAPROXEN, stock=stock, model=model, config=SearchConfig(validate=False, n_routes=1))
    assert res.solved and len(res.routes) == 1 and res.stats["n_clean_alternatives"] == 1
    assert sorted(n.smiles for n in res.routes[0].leaves()) == real
    assert res.routes[0].metadata["clean_alternative"] is True and res.routes[0].metadata["rank"] == 1
    # both routes returned anyway: nothing is added, and the analog route still ranks second
    both = search_routes(NAPROXEN, stock=stock, model=model, config=SearchConfig(validate=False))
    assert both.stats["n_clean_alternatives"] == 0 and len(both.routes) == 2
    assert sorted(n.smiles for n in both.routes[0].leaves()) == real
    # off: the analog route alone
    off = search_routes(NAPROXEN, stock=stock, model=model,
                        config=SearchConfig(validate=False, n_routes=1, clean_alternatives=0))
    assert "analog_shortcut" in {i["code"] for i in off.routes[0].metadata["route"]["issues"]}


def _venlafaxine_type(tmp_path):
    """A target two ways: the venlafaxine-type addition (flagged ``unactivated_carbanion``, one step at 0.5) or the
    ester aldol, reduction and bromination (three clean steps); the target, the stock and the model."""
    from tests.chem.test_mechanism import VENLAFAXINE_STEP

    target = "COc1ccc(C(CBr)C2(O)CCCCC2)cc1"
    alcohol = "COc1ccc(C(CO)C2(O)CCCCC2)cc1"
    ester = "COC(=O)C(c1ccc(OC)cc1)C1(O)CCCCC1"
    stock = FileStock(_file(tmp_path, "s.smi", ["O=C1CCCCC1", "COc1ccc(CCBr)cc1", "COC(=O)Cc1ccc(OC)cc1",
                                                 "BrP(Br)Br"]))
    model = DictSingleStepModel({
        target: [(["O=C1CCCCC1", "COc1ccc(CCBr)cc1"], 0.5, "addition", "C-C bond formation", VENLAFAXINE_STEP),
                 ([alcohol, "BrP(Br)Br"], 0.1, "bromination")],
        alcohol: [([ester], 0.5, "ester reduction")],
        ester: [(["O=C1CCCCC1", "COC(=O)Cc1ccc(OC)cc1"], 0.5, "aldol addition")],
    })
    return target, stock, model


def test_a_route_with_a_mechanism_flag_ranks_after_a_clean_one(tmp_path):
    from molx_agent.retro.judge import route_rank_tier

    # the venlafaxine-type addition (flagged, one step at 0.5) against the ester aldol, reduction and bromination
    target, stock, model = _venlafaxine_type(tmp_path)
    by_cost = search_routes(target, stock=stock, model=model, config=SearchConfig(validate=False, rank_by="cost"))
    assert [g.reaction_nodes[0].reaction_type for g in by_cost.routes] == ["addition", "bromination"]
    res = search_routes(target, stock=stock, model=model, config=SearchConfig(validate=False))
    assert [g.reaction_nodes[0].reaction_type for g in res.routes] == ["bromination", "addition"]
    assert [g.metadata["rank"] for g in res.routes] == [1, 2]
    flagged = {i["code"] for i in res.routes[1].metadata["route"]["issues"]}
    assert "unactivated_carbanion" in flagged
    assert res.routes[0].metadata["route_score"] > res.routes[1].metadata["route_score"]  # cheaper, yet second
    assert [route_rank_tier(c) for c in ([], ["low_score_step", "unsourced_stereocentre"], ["unactivated_snar"],
                                         ["unactivated_carbanion", "analog_shortcut"], ["strained_molecule"])] \
        == [0, 0, 1, 2, 2]


def test_a_clean_route_joins_routes_that_all_carry_a_mechanism_flag(tmp_path):
    """When every route returned has a step a chemist would not run (trust tier 1), the search's best routes without
    one join them, first: moxonidine's five verified-only routes of 2026-12-07 all aminated C5 of
    4,5,6-trichloropyrimidine while the process route was the search's sixth."""
    from molx_agent.retro.judge import route_rank_tier

    target, stock, model = _venlafaxine_type(tmp_path)
    # one route asked for: the cheaper flagged addition alone would be returned; the clean route comes first
    res = search_routes(target, stock=stock, model=model, config=SearchConfig(validate=False, n_routes=1))
    assert res.solved and len(res.routes) == 1 and res.stats["n_clean_alternatives"] == 1
    assert res.routes[0].reaction_nodes[0].reaction_type == "bromination"
    assert res.routes[0].metadata["clean_alternative"] is True
    assert route_rank_tier(i["code"] for i in res.routes[0].metadata["route"]["issues"]) == 0
    # off: the flagged route alone
    off = search_routes(target, stock=stock, model=model,
                        config=SearchConfig(validate=False, n_routes=1, clean_alternatives=0))
    assert off.stats["n_clean_alternatives"] == 0
    assert "unactivated_carbanion" in {i["code"] for i in off.routes[0].metadata["route"]["issues"]}


@pytest.mark.parametrize("smiles, kind", [
    ("N#[C][Cu]", None), ("N#C[Zn]C#N", None), ("N#C[Na]", None), ("[C-]#N.[K+]", None),  # metal cyanides: reagents
    ("CCCC[Li]", "organolithium"), ("C[Mg]Br", "organomagnesium (Grignard)"), ("c1ccccc1[Cu]", "organocopper"),
    ("CC[Zn]CC", "organozinc"),
])
def test_a_metal_cyanide_is_a_reagent_not_an_organometallic(smiles, kind):
    # citalopram's Rosenmund-von Braun cyanation buys CuCN: it was flagged "reactive intermediate (organocopper)"
    from molx_agent.retro.judge import reactive_kind

    assert reactive_kind(smiles) == kind


@pytest.mark.parametrize("smiles, flagged", [
    ("CNCC=O", True), ("C#CCNCC=O", True), ("O=CC1CCNCC1", True),  # a secondary amine and an enolisable aldehyde
    ("COC(=O)[C@@H](N)Cc1ccc(C=O)cc1", True),  # a primary amine and an aryl aldehyde: imines
    ("COC(OC)CNC", False), ("CC(C)(C)OC(=O)NCC=O", False), ("CN(C)CC=O", False),  # acetal, carbamate, tertiary
    ("Nc1ccccc1C=O", False), ("O=Cc1ccc(N2CCNCC2)cc1", False),  # an aniline; a secondary amine, no enolisable CHO
    ("CC(=O)NCC=O", False), ("[NH3+]CC=O", False),  # an amide; an ammonium salt
])
def test_a_free_amino_aldehyde_is_a_reactive_leaf(smiles, flagged, tmp_path):
    # epinephrine's route bought N-methylaminoacetaldehyde (CNCC=O) as if it were a bottle on the shelf; it is sold as
    # its dimethyl acetal, because the free base condenses with itself
    from molx_agent.retro.judge import AMINO_ALDEHYDE as KIND

    assert (reactive_kind(smiles) == KIND) is flagged
    if flagged:
        bloom_only = judge_leaf(smiles, BloomStock(_file(tmp_path, "b.smi", [smiles])), SearchConfig())
        assert not bloom_only["accept"] and "amino aldehyde" in bloom_only["reason"]
        exact = judge_leaf(smiles, FileStock(_file(tmp_path, "v.smi", [smiles])), SearchConfig())
        assert exact["accept"] and [i["code"] for i in exact["issues"]] == ["reactive_leaf"]
        assert "acetal" in exact["issues"][0]["message"]


def test_the_amino_aldehyde_rule_reads_the_alkyl_amine_of_the_self_reactive_table():
    # judge keeps RDKit out of its import, so it holds the SMARTS as a string: it must stay the mechanism table's
    from molx_agent.chem.mechanism import SELF_REACTIVE_NUCLEOPHILES
    from molx_agent.retro.judge import _ALKYL_AMINE

    assert _ALKYL_AMINE == SELF_REACTIVE_NUCLEOPHILES[0][1]

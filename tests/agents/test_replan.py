"""REFLECT issues and OPTIMIZE changes on hand-built states: each criticism gets its own, different change."""

from __future__ import annotations

import pytest

from molx_agent.agents.reflection import collect_issues, derive_reflection
from molx_agent.agents.replan import apply_changes, propose_changes

TARGET = "CC(=O)Nc1ccc(O)cc1"


def _search_state(target_issues, options=None, verdict="weak", guidance=None):
    tasks = {
        "t1": {"id": "t1", "type": "analysis", "status": "done", "depends_on": [], "inputs": {}},
        "t2": {"id": "t2", "type": "disconnection", "status": "done", "depends_on": ["t1"],
               "inputs": {"options": dict(options or {})}},
        "t3": {"id": "t3", "type": "validation", "status": "done", "depends_on": ["t2"], "inputs": {}},
        "t4": {"id": "t4", "type": "reporter", "status": "done", "depends_on": ["t3"], "inputs": {}},
    }
    results = {
        "t1": {"molecules": [{"smiles": TARGET, "guidance": guidance}] if guidance else []},
        "t2": {"target_smiles": TARGET, "solved": verdict != "reject"},
        "t3": {"mode": "routes", "verdict": verdict,
               "targets": [{"target_smiles": TARGET, "target_name": "paracetamol", "verdict": verdict,
                            "issues": target_issues}]},
        "t4": {"report_paths": []},
    }
    return {"tasks": tasks, "results": results, "iteration": 0}


def _only_change(state):
    actions = propose_changes(state, collect_issues(state))
    assert len(actions) == 1, actions
    assert actions[0]["task_id"] == "t2"  # the search is changed, not the validation that judged it
    return actions[0]


def test_an_analog_shortcut_is_avoided_by_excluding_the_bought_analog():
    state = _search_state([{"code": "analog_shortcut", "message": "bought a near analog", "smiles": "Oc1ccc(N)cc1C",
                            "step": "x>>y"}])
    change = _only_change(state)
    assert change["strategy"] == "avoid" and change["options"] == {"exclude_leaves": ["Oc1ccc(N)cc1C"]}
    assert change["targets"] == [TARGET]
    new = apply_changes(state["tasks"], [change])
    opts = new["t2"]["inputs"]["options"]
    assert opts["exclude_leaves"] == ["Oc1ccc(N)cc1C"] and opts["tried"] == ["avoid"] and opts["research_targets"]
    assert [new[t]["status"] for t in ("t1", "t2", "t3", "t4")] == ["done", "pending", "pending", "pending"]


def test_an_implausible_step_is_excluded():
    change = _only_change(_search_state([{"code": "implausible_step", "message": "1e-5", "step": "A.B>>C"}]))
    assert change["strategy"] == "avoid" and change["options"]["exclude_steps"] == ["A.B>>C"]


def test_a_step_with_an_implausible_mechanism_is_excluded_but_a_stereo_note_is_not():
    flagged = {"code": "unactivated_carbanion", "message": "mechanism: ...", "step": "A.B>>C", "atoms": [7, 10]}
    change = _only_change(_search_state([flagged]))
    assert change["strategy"] == "avoid" and change["options"]["exclude_steps"] == ["A.B>>C"]
    stereo = {"code": "unsourced_stereocentre", "message": "stereochemistry: ...", "step": "A.B>>C"}
    assert _only_change(_search_state([stereo]))["strategy"] == "wider_longer"
    twin = {"code": "competing_site", "message": "selectivity: ...", "step": "A.B>>C", "atoms": [1, 9, 4]}
    assert _only_change(_search_state([twin]))["strategy"] == "wider_longer"


@pytest.mark.parametrize("code", ["alcohol_c_acylation", "halide_selectivity", "oxidation_without_oxidant",
                                  "electrophile_selectivity", "aromatic_regiochemistry", "deactivated_arene", "ipso_substitution", "arene_hydroxylation",
                                  "unprotected_amino_acid", "unprotected_c_acylation", "mustard_nucleophile",
                                  "organometallic_carried", "diaryl_ketone_condensation",
                                  "amide_condensation", "amide_reductive_amination", "self_reactive_molecule"])
def test_a_sulfone_from_an_alcohol_or_a_self_reactive_intermediate_is_searched_again_without_its_step(code):
    flagged = {"code": code, "message": "...", "step": "A.B>>C", "smiles": "C"}
    change = _only_change(_search_state([flagged]))
    assert change["strategy"] == "avoid" and change["options"] == {"exclude_steps": ["A.B>>C"]}


def test_bloom_filter_leaves_lead_to_a_verified_stock_only_search():
    change = _only_change(_search_state([{"code": "probable_leaf", "message": "ZINC only", "smiles": "CCN"}]))
    assert change["strategy"] == "verified_only" and change["options"] == {"allow_probable_leaves": False}
    again = _search_state([{"code": "probable_leaf", "message": "ZINC only", "smiles": "CCN"}],
                          options={"tried": ["verified_only"], "allow_probable_leaves": False})
    assert _only_change(again)["strategy"] == "wider_longer"  # never the same change twice


def test_an_unsolved_target_gets_a_longer_wider_search_then_a_strategic_disconnection():
    from molx_agent.retro.search_types import SearchConfig

    cfg = SearchConfig()
    unsolved = [{"code": "not_solved", "message": "no route"}]
    change = _only_change(_search_state(unsolved, verdict="reject"))
    assert change["strategy"] == "wider_longer"
    assert change["options"] == {"time_limit": cfg.time_limit * 3, "expansion_top_k": cfg.expansion_top_k * 2,
                                 "max_expansions": cfg.max_expansions * 2}
    guidance = {"strategic_bonds": [{"label": "amide C(=O)-N", "reaction_type": "Amide bond formation",
                                     "fragments": ["CC(=O)O", "Nc1ccc(O)cc1"], "confidence": 0.9}]}
    state = _search_state(unsolved, verdict="reject", options={"tried": ["wider_longer"], "time_limit": 180},
                          guidance=guidance)
    change = _only_change(state)
    assert change["strategy"] == "strategic_disconnection"
    assert change["options"]["first_disconnection"][TARGET]["fragments"] == ["CC(=O)O", "Nc1ccc(O)cc1"]
    done = _search_state(unsolved, verdict="reject", options={"tried": ["wider_longer", "strategic_disconnection"]},
                         guidance=guidance)
    assert propose_changes(done, collect_issues(done)) == []
    refl = derive_reflection(done, max_iterations=3)
    assert refl["should_replan"] is False and refl["success"] is False


def test_max_iterations_bounds_the_rounds():
    state = {**_search_state([{"code": "not_solved", "message": "no route"}], verdict="reject"), "iteration": 3}
    refl = derive_reflection(state, max_iterations=3)
    assert refl["actions"] and refl["should_replan"] is False


@pytest.mark.parametrize(("codes", "tried", "strategy", "options"), [
    (["trivial_core"], [], "smaller_series", {"min_series_size": 3}),
    (["trivial_core"], ["smaller_series"], "core_murcko", {"core_strategy": "murcko"}),
    (["trivial_core"], ["smaller_series", "core_murcko"], "core_mcs", {"core_strategy": "mcs"}),
    (["small_series"], [], "smaller_series", {"min_series_size": 3}),
    (["low_core_coverage"], ["smaller_series"], None, None),
    (["no_potency_spread"], [], None, None),  # re-running cannot widen the assay range: reported, not re-planned
    (["columns_guessed"], [], None, None),
])
def test_sar_issues_get_another_core_or_series_split(codes, tried, strategy, options):
    state = {"tasks": {"t2": {"id": "t2", "type": "sar", "status": "done", "depends_on": [],
                              "inputs": {"options": {"tried": tried}}}},
             "results": {"t2": {"verdict": "weak", "issues": [{"code": c, "message": c} for c in codes]}},
             "iteration": 0}
    actions = propose_changes(state, collect_issues(state))
    if strategy is None:
        assert actions == []
    else:
        assert actions[0]["strategy"] == strategy and actions[0]["options"] == options


def test_bad_input_is_never_retried_and_transient_faults_are():
    state = {"tasks": {"t1": {"id": "t1", "type": "data_cleaner", "status": "failed", "error_class": "bad_input"},
                       "t2": {"id": "t2", "type": "sar", "status": "skipped", "depends_on": ["t1"]},
                       "t3": {"id": "t3", "type": "analysis", "status": "failed", "error_class": "transient"}},
             "results": {"t1": {"error": {"code": "no_smiles_column", "message": "no SMILES column",
                                          "hint": "name the SMILES column"}},
                         "t3": {"error": {"code": "timeout", "message": "timed out"}}},
             "iteration": 0}
    issues = collect_issues(state)
    assert {(i["task_id"], i["class"]) for i in issues} == {("t1", "bad_input"), ("t2", "blocked"),
                                                            ("t3", "transient")}
    assert next(i for i in issues if i["task_id"] == "t1")["hint"] == "name the SMILES column"
    actions = propose_changes(state, issues)
    assert [(a["kind"], a["task_id"]) for a in actions] == [("retry", "t3")]


@pytest.mark.parametrize("bond", [
    # an organometallic capping (the analysis writes the Grignard reagent itself): no search can take it
    {"label": "benzylic Ar-C(sp3)", "reaction_type": "Grignard", "confidence": 0.45,
     "fragments": ["COc1ccc2c[c]([Mg][Br])ccc2c1", "C[C@@H](Br)C(=O)O"]},
    # a trim of a near analog of the target (naproxen's methyl ether from the phenol): the analog shortcut again
    {"label": "ether O-C(sp3)", "reaction_type": "Williamson ether", "confidence": 0.7,
     "fragments": ["CBr", "C[C@H](C(=O)O)c1ccc2cc(O)ccc2c1"], "interconversion": "C[C@H](C(=O)O)c1ccc2cc(O)ccc2c1"},
    # a capping no chemist would run (an arene alkylated through a destabilised carbocation)
    {"label": "benzylic Ar-C(sp3)", "reaction_type": "Friedel-Crafts alkylation", "confidence": 0.55,
     "fragments": ["COc1ccc2ccccc2c1", "C[C@@H](Br)C(=O)O"], "mechanism_flagged": True},
    # omeprazole's sulfoxide bond, reached through the sulfide: two steps, and the first disconnection composes one
    {"label": "sulfoxide S-C(sp3)", "reaction_type": "S-alkylation (SN2), then oxidation to the sulfoxide",
     "confidence": None, "fragments": ["COc1c(C)cnc(CBr)c1C", "COc1ccc2[nH]c(S)nc2c1"],
     "via": {"sulfide": "COc1ccc2[nH]c(SCc3ncc(C)c(OC)c3C)nc2c1", "oxidation": "sulfoxide"}},
    # sitagliptin's amide of the free beta-amino acid: the coupling needs the amine protected first
    {"label": "amide C(=O)-N", "reaction_type": "Amide bond formation", "confidence": 0.9,
     "fragments": ["FC(F)(F)c1nnc2n1CCNC2", "N[C@@H](CC(=O)O)Cc1cc(F)c(F)cc1F"], "needs_protection": True},
])
def test_no_strategic_disconnection_at_a_bond_a_search_cannot_use(bond):
    unsolved = [{"code": "not_solved", "message": "no route"}]
    state = _search_state(unsolved, verdict="reject", options={"tried": ["wider_longer"], "time_limit": 180},
                          guidance={"strategic_bonds": [bond]})
    assert propose_changes(state, collect_issues(state)) == []
    # the next usable bond is taken instead
    amide = {"label": "amide C(=O)-N", "reaction_type": "Amide bond formation", "confidence": 0.9,
             "fragments": ["CC(=O)O", "Nc1ccc(O)cc1"]}
    state = _search_state(unsolved, verdict="reject", options={"tried": ["wider_longer"], "time_limit": 180},
                          guidance={"strategic_bonds": [bond, amide]})
    change = _only_change(state)
    assert change["options"]["first_disconnection"][TARGET]["fragments"] == ["CC(=O)O", "Nc1ccc(O)cc1"]

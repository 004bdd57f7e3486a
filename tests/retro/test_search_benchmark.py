"""Helpers of benchmarks/multistep.py: stratified sampling and the route-match rule (needs ../shared/data)."""

from __future__ import annotations

from collections import Counter

import pytest

from molx_agent.retro.route import RetroGraph


@pytest.fixture
def multistep(shared_data, repo_script):
    return repo_script("benchmarks/multistep.py")


@pytest.fixture
def ref_targets(multistep):
    return multistep.load_targets()


def _graph_from_reference(node):
    graph = RetroGraph.new(node["smiles"])

    def walk(gid, n):
        step = n.get("synthesis_step")
        if not step:
            return
        kids = step["reactants"]
        rxn = graph.add_reaction(gid, [k["smiles"] for k in kids])
        for cid, k in zip(rxn.reactant_nodes, kids, strict=True):
            walk(cid, k)

    walk(graph.target_id, node)
    return graph


def test_stratified_sample_is_deterministic_and_proportional(multistep, ref_targets):
    a = multistep.stratified_sample(ref_targets, 100, 0)
    assert a == multistep.stratified_sample(ref_targets, 100, 0)
    assert a != multistep.stratified_sample(ref_targets, 100, 1)
    assert len(a) == len(set(a)) == 100
    lengths = Counter(ref_targets[t]["route_length"] for t in a)
    full = Counter(t["route_length"] for t in ref_targets.values())
    for k, n in full.items():
        assert abs(lengths[k] - 100 * n / len(ref_targets)) < 1.0


def test_route_match_rule_recognises_the_reference_and_rejects_a_different_route(multistep, ref_targets):
    tid = sorted(ref_targets)[0]
    ref = ref_targets[tid]["ground_truth"]["target"]
    graph = _graph_from_reference(ref)
    assert multistep.graph_reactions(graph) == multistep.reference_reactions(ref)
    assert multistep.graph_reactions(graph, block=True) == multistep.reference_reactions(ref, block=True)
    shorter = RetroGraph.from_dict(graph.to_dict())
    shorter.reaction_nodes = shorter.reaction_nodes[:1]
    assert multistep.graph_reactions(shorter) != multistep.reference_reactions(ref)


def test_search_knobs_are_the_search_config_fields_set_on_the_command_line(multistep):
    import argparse

    from molx_agent.retro.search import SearchConfig

    base = dict(leaf_cost=None, step_penalty=None, expansion_top_k=None, no_reuse_solved=False, no_twin_values=False,
                leaf_cost_base=None, leaf_cost_per_atom=None)
    assert multistep.search_knobs(argparse.Namespace(**base)) == {}
    knobs = multistep.search_knobs(argparse.Namespace(**{**base, "step_penalty": 0.5, "no_reuse_solved": True,
                                                        "no_twin_values": True, "leaf_cost_base": 0.0,
                                                        "leaf_cost_per_atom": 0.0}))
    assert knobs == {"step_penalty": 0.5, "reuse_solved": False, "twin_values": False, "leaf_cost_base": 0.0,
                     "leaf_cost_per_atom": 0.0}
    cfg = SearchConfig(**knobs)
    assert (cfg.reuse_solved, cfg.twin_values, cfg.leaf_cost_per_atom) == (False, False, 0.0)
    assert (SearchConfig().reuse_solved, SearchConfig().twin_values) == (True, True)

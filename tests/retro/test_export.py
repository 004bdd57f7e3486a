"""AiZynthFinder-style reaction-tree export/import."""

from __future__ import annotations

import json

import pytest

from molx_agent.errors import ValidationError
from molx_agent.retro.export import from_aizynth_tree, route_signature, to_aizynth_tree
from molx_agent.retro.search import SearchConfig, search_routes
from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"


@pytest.fixture
def paracetamol_route(tmp_path):
    stock = tmp_path / "stock.smi"
    stock.write_text("CC(=O)OC(C)=O\nOc1ccccc1\n")
    model = DictSingleStepModel({
        PARACETAMOL: [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation")],
        "Nc1ccc(O)cc1": [(["O=[N+]([O-])c1ccc(O)cc1"], 0.7, "nitro reduction", "reduction")],
        "O=[N+]([O-])c1ccc(O)cc1": [(["Oc1ccccc1"], 0.5, "nitration", "aromatic substitution")],
    })
    res = search_routes(PARACETAMOL, stock=FileStock(stock), model=model, config=SearchConfig(validate=False),
                        name="paracetamol")
    return res.routes[0]


def test_export_shape(paracetamol_route):
    tree = to_aizynth_tree(paracetamol_route)
    json.dumps(tree)
    assert tree["type"] == "mol" and tree["smiles"] == PARACETAMOL and tree["in_stock"] is False
    (rxn,) = tree["children"]
    assert rxn["type"] == "reaction"
    assert rxn["smiles"] == f"{PARACETAMOL}>>CC(=O)OC(C)=O.Nc1ccc(O)cc1"  # retro direction, as AiZynthFinder
    assert rxn["metadata"]["forward_smiles"] == f"CC(=O)OC(C)=O.Nc1ccc(O)cc1>>{PARACETAMOL}"
    assert rxn["metadata"]["reaction_name"] == "N-acetylation"
    assert rxn["metadata"]["score"] == pytest.approx(0.6)
    assert rxn["metadata"]["template_id"]
    anhydride, aminophenol = rxn["children"]
    assert anhydride["in_stock"] is True and anhydride["children"] == []
    assert anhydride["metadata"]["source"] == "stock.smi"
    assert aminophenol["in_stock"] is False and aminophenol["children"][0]["type"] == "reaction"
    assert tree["metadata"]["route"]["target_name"] == "paracetamol"


def test_round_trip_graph_tree_graph(paracetamol_route):
    tree = to_aizynth_tree(paracetamol_route)
    graph = from_aizynth_tree(json.loads(json.dumps(tree)))
    assert to_aizynth_tree(graph) == tree
    assert graph.n_steps == paracetamol_route.n_steps == 3
    assert graph.target_name == "paracetamol"
    assert sorted(n.smiles for n in graph.leaves()) == sorted(n.smiles for n in paracetamol_route.leaves())
    for a, b in zip(graph.reaction_nodes, paracetamol_route.reaction_nodes, strict=True):
        assert a.reaction_smiles == b.reaction_smiles
        assert a.template_evidence == b.template_evidence
        assert a.score == b.score
        assert a.step_id == b.step_id
    assert [n.availability for n in graph.leaves()] == [n.availability for n in paracetamol_route.leaves()]
    assert graph.is_complete()
    assert route_signature(tree) == route_signature(to_aizynth_tree(graph))


def test_import_an_aizynthfinder_tree():
    tree = {
        "type": "mol", "hide": False, "smiles": PARACETAMOL, "is_chemical": True, "in_stock": False,
        "children": [{
            "type": "reaction", "hide": False, "smiles": f"{PARACETAMOL}>>CC(=O)Cl.Nc1ccc(O)cc1", "is_reaction": True,
            "metadata": {"template_hash": "abc123", "classification": "N-acylation to amide",
                         "policy_probability": 0.42, "policy_name": "uspto"},
            "children": [
                {"type": "mol", "hide": False, "smiles": "CC(=O)Cl", "is_chemical": True, "in_stock": True},
                {"type": "mol", "hide": False, "smiles": "Nc1ccc(O)cc1", "is_chemical": True, "in_stock": True},
            ],
        }],
    }
    graph = from_aizynth_tree(tree)
    (step,) = graph.reaction_nodes
    assert step.template_evidence.template_id == "abc123"
    assert step.template_evidence.template_name == "N-acylation to amide"
    assert step.score == pytest.approx(0.42)
    assert step.reaction_smiles == f"CC(=O)Cl.Nc1ccc(O)cc1>>{PARACETAMOL}"
    assert all(n.role == "terminal" and n.in_stock for n in graph.leaves())


@pytest.mark.parametrize("bad", [
    {"type": "reaction", "smiles": "C>>C"},
    {"type": "mol"},
    {"type": "mol", "smiles": "CCO", "children": [{"type": "mol", "smiles": "C"}]},
    {"type": "mol", "smiles": "CCO", "children": [{"type": "reaction", "smiles": "CCO>>", "children": []}]},
])
def test_invalid_trees_are_clear_errors(bad):
    with pytest.raises(ValidationError) as err:
        from_aizynth_tree(bad)
    assert err.value.code == "invalid_reaction_tree"

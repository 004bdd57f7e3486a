"""benchmarks/leaf_cost_fit.py: the cost of making each reference intermediate, and the line fitted to it."""

from __future__ import annotations

import math

import pytest

from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
AMINOPHENOL = "Nc1ccc(O)cc1"
NITROPHENOL = "O=[N+]([O-])c1ccc(O)cc1"
AC2O = "CC(=O)OC(C)=O"
ACCL = "CC(=O)Cl"


@pytest.fixture(scope="module")
def fit(repo_script):
    return repo_script("benchmarks/leaf_cost_fit.py")


def _tree(smiles, *kids):
    node = {"smiles": smiles}
    if kids:
        node["synthesis_step"] = {"reactants": list(kids)}
    return node


def test_fit_line_recovers_a_line_and_rejects_degenerate_input(fit):
    base, per_atom = fit.fit_line([10.0, 20.0, 30.0], [3.0, 5.0, 7.0])
    assert (base, per_atom) == (pytest.approx(1.0), pytest.approx(0.2))
    with pytest.raises(ValueError):
        fit.fit_line([1.0], [1.0])
    with pytest.raises(ValueError):
        fit.fit_line([2.0, 2.0], [1.0, 3.0])


def test_an_intermediate_costs_its_reference_sub_route_in_search_units(fit, tmp_path):
    stock = tmp_path / "s.smi"
    stock.write_text(f"{AC2O}\n{NITROPHENOL}\n")
    model = DictSingleStepModel({
        PARACETAMOL: [([ACCL, AMINOPHENOL], 0.5, "acid chloride"), ([AC2O, AMINOPHENOL], 0.25, "anhydride")],
        AMINOPHENOL: [([NITROPHENOL], 0.8, "nitro reduction")],
    })
    ref = _tree(PARACETAMOL, _tree(AC2O), _tree(AMINOPHENOL, _tree(NITROPHENOL)))
    records = {r["smiles"]: r for r in fit.intermediate_costs(ref, model, FileStock(stock), 50, 0.1, 1e-3)}
    reduction = -math.log(0.8) + 0.1
    assert records[AMINOPHENOL]["cost"] == pytest.approx(reduction)
    assert records[AMINOPHENOL]["heavy_atoms"] == 8
    # the reference step is the model's second proposal (the anhydride), not its first
    assert records[PARACETAMOL]["cost"] == pytest.approx(-math.log(0.25) + 0.1 + reduction)
    # a reference step the model does not propose leaves every intermediate above it without a cost
    unproposed = _tree(PARACETAMOL, _tree("CC(=O)O"), _tree(AMINOPHENOL, _tree(NITROPHENOL)))
    records = {r["smiles"]: r for r in fit.intermediate_costs(unproposed, model, FileStock(stock), 50, 0.1, 1e-3)}
    assert records[PARACETAMOL]["cost"] is None and records[AMINOPHENOL]["cost"] == pytest.approx(reduction)

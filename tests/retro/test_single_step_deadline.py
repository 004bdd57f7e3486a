"""The single-step model's deadline and size limit (issue 29).

``predict(..., deadline=t)`` stops applying templates at ``t`` and ranks what it has (``cut_short``); without a
deadline (or with one far away) the predictions are exactly those of a plain call (checked on 50 USPTO-50K
validation products by ``benchmarks/single_step_deadline.py``); a product above the retrosynthesis heavy-atom
limit is refused before any template runs.
"""

from __future__ import annotations

import time

import pytest

from molx_agent.errors import ChemistryError
from molx_agent.retro.named_templates import NamedTemplateMatcher, application_deadline
from molx_agent.retro.single_step import PredictionList, load_single_step_model

PRODUCTS = ["CC(=O)Nc1ccc(O)cc1", "CC(=O)Oc1ccccc1C(=O)O", "O=C(NCc1ccccc1)c1ccc(Br)cc1", "COc1ccc(-c2ccccc2)cc1"]


@pytest.fixture(scope="module")
def model():
    return load_single_step_model()


@pytest.mark.parametrize("product", PRODUCTS)
def test_a_far_deadline_changes_nothing(model, product):
    plain = model.predict(product, top_k=50)
    far = model.predict(product, top_k=50, deadline=time.perf_counter() + 3600)
    assert isinstance(plain, PredictionList) and not plain.cut_short and not far.cut_short
    assert [p.to_dict() for p in far] == [p.to_dict() for p in plain]


def test_a_passed_deadline_returns_what_it_has_and_says_so(model):
    product = "CC(=O)Nc1ccc(O)cc1C(=O)NCc1ccccc1"
    preds = model.predict(product, top_k=50, deadline=time.perf_counter() - 1)
    assert preds.cut_short and isinstance(preds, list)
    full = model.predict(product, top_k=50)
    assert not full.cut_short and len(full) >= len(preds)  # the cut list is not what a later call sees


def test_a_named_template_table_cut_short_is_not_cached():
    matcher = NamedTemplateMatcher.load()
    product = "O=C(Nc1ccccc1)c1ccc(Br)cc1"
    cut_table, cut = matcher.precursor_table_until(product, deadline=time.perf_counter() - 1)
    assert cut and cut_table == {}
    full, cut_again = matcher.precursor_table_until(product)
    assert not cut_again and full  # computed in full, then cached
    assert matcher.precursor_table_until(product, deadline=time.perf_counter() - 1) == (full, False)


def test_template_application_stops_inside_a_deadline_block():
    from molx_agent.retro.named_templates import compile_template

    rxn = compile_template("[C:1](=[O:2])[NH:3][c:4]>>[C:1](=[O:2])Cl.[NH2:3][c:4]")
    from rdkit import Chem

    mol = Chem.MolFromSmiles("CC(=O)Nc1ccc(NC(C)=O)cc1")
    assert rxn.rxn.RunReactants((mol,))
    with application_deadline(time.perf_counter() - 1) as budget:
        assert rxn.rxn.RunReactants((mol,)) == ()
    assert budget.cut


def test_products_over_the_retro_limit_are_refused_before_any_template(model, monkeypatch):
    from molx_agent.config import reset_settings_cache

    with pytest.raises(ChemistryError) as exc:
        model.predict("C" * 151)
    assert exc.value.code == "molecule_too_large" and "151 heavy atoms" in exc.value.message
    monkeypatch.setenv("MOLX_MAX_RETRO_HEAVY_ATOMS", "200")
    reset_settings_cache()
    assert isinstance(model.predict("C" * 151, top_k=5), list)
    with pytest.raises(ChemistryError) as exc:
        model.predict("CC O")
    assert exc.value.code == "smiles_contains_whitespace"

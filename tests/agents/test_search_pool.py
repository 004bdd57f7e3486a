"""Several targets' searches in a bounded process pool (toy engine shipped to the children)."""

from __future__ import annotations

import pickle

from molx_agent.agents.search_pool import SearchJob, default_workers, engine_spec, run_searches, search_kwargs
from tests.agents.conftest import PARACETAMOL, STRYCHNINE


def test_searches_run_in_processes_and_come_back_in_order(toy_engine):
    jobs = [SearchJob(STRYCHNINE, "strychnine", {"time_limit": 2.0}), SearchJob(PARACETAMOL, "paracetamol", {}),
            SearchJob("C1CC", "broken", {})]
    records = run_searches(toy_engine, jobs, workers=2)
    assert [r["target_name"] for r in records] == ["strychnine", "paracetamol", "broken"]
    assert records[0]["solved"] is False and records[0]["reasons"]
    assert records[1]["solved"] is True and records[1]["route_graphs"][0]["target_smiles"]
    assert records[2]["error"]["code"] == "invalid_smiles"  # one bad target is a record, not a lost batch
    assert run_searches(toy_engine, jobs[1:2], workers=2)[0]["solved"] is True  # one job: in-process


def test_engine_spec_ships_an_injected_model_and_stock(toy_engine):
    toy_engine.predict(PARACETAMOL)  # the model is loaded (injected)
    model, stock, config = pickle.loads(engine_spec(toy_engine))
    assert model is not None and stock is not None and config == toy_engine.config


def test_pool_size_is_bounded():
    assert default_workers(1) == 1 and default_workers(10, 3) == 3 and default_workers(2, 8) == 2
    assert 1 <= default_workers(50) <= 4


def test_search_options_become_engine_keywords():
    kw = search_kwargs({"time_limit": "6", "expansion_top_k": 100, "exclude_leaves": ["CCO"],
                        "allow_probable_leaves": False, "strategy": "avoid"})
    assert kw == {"time_limit": 6.0, "expansion_top_k": 100, "exclude_leaves": ("CCO",),
                  "allow_probable_leaves": False}

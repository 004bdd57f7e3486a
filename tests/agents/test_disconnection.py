"""The ``disconnection`` worker and the route report used by the reporter (toy single-step model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from molx_agent.agents.disconnection import DisconnectionAgent
from molx_agent.agents.route_report import write_route_report
from molx_agent.errors import ValidationError
from molx_agent.retro.route import RetroGraph
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"


@pytest.fixture
def toy_route_env(tmp_path):
    """A toy engine (no model files, no ZINC): paracetamol and its methyl ether in one step each."""
    from molx_agent.retro.engine import RetroEngine
    from molx_agent.retro.stock import FileStock

    model = DictSingleStepModel({
        PARACETAMOL: [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation")],
        "CC(=O)Nc1ccc(OC)cc1": [(["CC(=O)OC(C)=O", "COc1ccc(N)cc1"], 0.5, "N-acetylation", "acylation")],
    })
    stock = tmp_path / "stock.smi"
    stock.write_text("CC(=O)OC(C)=O\nNc1ccc(O)cc1\n")
    return RetroEngine(model=model, stock=FileStock(stock))


def _state(inputs, language="en", results=None, depends_on=None):
    task = {"id": "t2", "type": "disconnection", "inputs": inputs, "depends_on": depends_on or [], "status": "pending"}
    return {"current_task_id": "t2", "tasks": {"t2": task}, "results": results or {}, "language": language}


def test_disconnection_from_smiles_and_name(toy_route_env):
    state = _state({"smiles": [PARACETAMOL], "names": ["paracetamol"], "options": {"time_limit": 10}})
    update = DisconnectionAgent(engine=toy_route_env).run(state)
    assert update["tasks"]["t2"]["status"] == "done"
    res = update["results"]["t2"]
    assert res["solved"] is True and res["target_name"] == "paracetamol"
    graph = RetroGraph.from_dict(res["route_graph"])
    assert graph.n_steps == 1 and graph.is_complete()
    assert all(leaf.availability["source"] == "stock.smi" for leaf in graph.leaves())
    assert res["routes"][0]["type"] == "mol"
    for key in ("target_smiles", "n_expansions", "time_s", "stock", "reasons", "summary"):
        assert key in res
    json.dumps(res)


def test_disconnection_takes_sar_top_compounds_and_keeps_every_target(toy_route_env):
    sar = {"top_compounds": [{"id": "cpd-7", "smiles": PARACETAMOL, "p_activity": 8.1},
                             {"id": "cpd-2", "smiles": "CC(=O)Nc1ccc(OC)cc1", "p_activity": 7.5},
                             {"id": "cpd-9", "smiles": "CCCCCCCCCCCC(=O)N1CCCC1", "p_activity": 7.0}]}
    state = _state({"smiles": [], "options": {}}, language="zh", results={"t1": sar}, depends_on=["t1"])
    res = DisconnectionAgent(engine=toy_route_env, search_workers=1).run(state)["results"]["t2"]
    assert [t["target_name"] for t in res["targets"]] == ["cpd-7", "cpd-2", "cpd-9"]
    assert [t["solved"] for t in res["targets"]] == [True, False, False]
    assert res["summary"].startswith("1/3")


def test_disconnection_without_target_fails_clearly(toy_route_env):
    update = DisconnectionAgent(engine=toy_route_env).run(_state({"smiles": []}))
    assert update["tasks"]["t2"]["status"] == "failed"
    assert update["results"]["t2"]["error"]["code"] == "no_target"


def test_route_report_writes_the_shared_report(toy_route_env, tmp_path):
    state = _state({"smiles": [PARACETAMOL], "names": ["paracetamol"], "options": {}})
    res = DisconnectionAgent(engine=toy_route_env).run(state)["results"]["t2"]
    out = write_route_report(res, tmp_path / "rep", language="en", validation={"all_valid": True})
    assert out["report_paths"] and all(Path(p).is_file() for p in out["report_paths"])
    html = next(p for p in out["report_paths"] if p.endswith(".html"))
    assert "N-acetylation" in Path(html).read_text(encoding="utf-8")
    assert "report" in out["summary"]
    with pytest.raises(ValidationError):
        write_route_report({"target_smiles": "CCO", "route_graph": None}, tmp_path / "x")


def test_attempt_lines_in_english_and_chinese():
    from molx_agent.agents.disconnection import _attempt_line

    rec = {"target_name": "苯妥英", "route_graphs": [{}, {}, {}],
           "searches": [{"attempt": 2, "solved": True, "n_routes": 1, "n_expansions": 900, "time_limit": 60.0}]}
    assert _attempt_line(rec, 2) == "苯妥英: new route(s) found (1) (900 expansions, 60.0 s limit; 2 earlier route(s) kept)"
    assert _attempt_line(rec, 2, "zh") == "苯妥英：找到 1 条新路线（900 次扩展，时限 60.0 秒；保留之前的 2 条路线）"
    assert _attempt_line(rec, 3, "zh") == "苯妥英：沿用第 2 次尝试的结果"
    assert _attempt_line({"target_name": "x", "purchasable": True}, 1, "zh") == "x：可直接购买"

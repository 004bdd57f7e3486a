"""``molx-agent route``: run_route and the CLI, on a toy model (fast) and on the packaged model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.route import resolve_target, run_route
from molx_agent.errors import ChemistryError
from molx_agent.retro.engine import RetroEngine
from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"


@pytest.fixture
def toy_model():
    return DictSingleStepModel({
        PARACETAMOL: [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation")],
        "Nc1ccc(O)cc1": [(["O=[N+]([O-])c1ccc(O)cc1"], 0.7, "nitro reduction", "reduction")],
    })


@pytest.fixture
def toy_stock(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("CC(=O)OC(C)=O\nO=[N+]([O-])c1ccc(O)cc1\n")
    return str(path)


@pytest.fixture
def toy_default_engine(monkeypatch, toy_model):
    """The CLI's entry point builds the process-wide engine: make that a toy engine (no packaged model)."""
    import molx_agent.retro.engine as engine_mod

    engine = RetroEngine(model=toy_model)
    monkeypatch.setattr(engine_mod, "_DEFAULT", engine)
    return engine


def test_resolve_target_names_and_smiles():
    assert resolve_target("paracetamol") == (PARACETAMOL, "paracetamol")
    assert resolve_target("Acetaminophen")[0] == PARACETAMOL
    assert resolve_target("CCO") == ("CCO", "")
    with pytest.raises(ChemistryError) as err:
        resolve_target("notadrugname")
    assert err.value.code == "unknown_target" and "SMILES" in str(err.value)


def test_run_route_writes_routes_json_and_report(tmp_path, toy_model, toy_stock):
    out = tmp_path / "out"
    payload = run_route("paracetamol", stock=toy_stock, model=toy_model, output_dir=out, time_limit=10)
    assert payload["solved"] is True and payload["target_name"] == "paracetamol"
    assert payload["routes"][0]["children"][0]["metadata"]["reaction_name"] == "N-acetylation"
    assert payload["stock"] == "stock.smi"
    saved = json.loads((out / "routes.json").read_text())
    assert saved["routes"] == payload["routes"]
    html = Path(payload["files"]["html"]).read_text(encoding="utf-8")
    assert "N-acetylation" in html and "http://" not in html.replace("http://www.w3.org", "")
    assert payload["route_summaries"][0]["n_steps"] == 2
    assert {m["source"] for m in payload["route_summaries"][0]["starting_materials"]} == {"stock.smi"}
    assert "Found 1 route" in payload["summary"]


def test_run_route_searches_with_the_injected_engine(tmp_path, toy_model, toy_stock):
    engine = RetroEngine(model=toy_model, stock=FileStock(toy_stock))
    payload = run_route("paracetamol", engine=engine, output_dir=tmp_path / "e", time_limit=5, write_files=False)
    assert payload["solved"] is True and toy_model.n_calls >= 1
    leaves = payload["route_summaries"][0]["starting_materials"]
    # the toy model's own precursors: acetic anhydride and 4-nitrophenol, from the toy stock
    assert {m["smiles"] for m in leaves} == {"CC(=O)OC(C)=O", "O=[N+]([O-])c1ccc(O)cc1"}
    assert all(m["tier"] == "verified" for m in leaves)
    assert payload["files"] == {} and not (tmp_path / "e").exists()


def test_route_payload_keys_are_the_search_payload(tmp_path, toy_model, toy_stock):
    from molx_agent.retro.payload import search_payload

    engine = RetroEngine(model=toy_model, stock=FileStock(toy_stock))
    payload = run_route(PARACETAMOL, engine=engine, time_limit=5, write_files=False)
    expected = search_payload(engine.search(PARACETAMOL, time_limit=5), target=PARACETAMOL)
    assert set(payload) == set(expected) | {"files"}
    for key in ("target", "target_smiles", "target_name", "solved", "routes", "partial_route", "n_expansions",
                "time_s", "stock", "reasons", "stopped_by", "route_summaries", "summary"):
        assert key in payload
    summary = payload["route_summaries"][0]
    assert {"rank", "n_steps", "total_cost", "longest_linear_sequence", "confidence", "issues",
            "starting_materials"} <= set(summary)
    assert payload["routes"] == expected["routes"]
    # the search's own spend: the toy model's calls (a search with its own caches), their time, the tree's size
    stats = payload["search_stats"]
    assert stats["n_model_calls"] == expected["search_stats"]["n_model_calls"] >= 1
    assert stats["model_time_s"] >= 0.0 and stats["n_nodes"] >= 3


def test_run_route_limits_default_to_search_config(toy_model, toy_stock):
    from molx_agent.retro.search_types import SearchConfig

    engine = RetroEngine(model=toy_model, stock=FileStock(toy_stock), config=SearchConfig(max_depth=1))
    payload = run_route(PARACETAMOL, engine=engine, write_files=False)  # no limit given: the engine's config
    assert payload["solved"] is False  # the only route needs two steps
    assert run_route(PARACETAMOL, engine=engine, max_depth=2, write_files=False)["solved"] is True


def test_run_route_unsolved_gives_partial_route_and_reasons(tmp_path, toy_model):
    stock = tmp_path / "s.smi"
    stock.write_text("CC(=O)OC(C)=O\n")
    payload = run_route(PARACETAMOL, stock=str(stock), model=toy_model, output_dir=tmp_path / "o", language="zh")
    assert payload["solved"] is False and payload["routes"] == []
    assert payload["partial_route"]["smiles"] == PARACETAMOL
    assert payload["reasons"] and "未能" in payload["summary"]
    assert "html" in payload["files"]


def test_cli_route_json(tmp_path, toy_default_engine, toy_stock):
    res = CliRunner().invoke(app, ["route", "paracetamol", "--stock", toy_stock, "--json", "--time-limit", "5",
                                   "--output-dir", str(tmp_path / "cli")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("solved", "routes", "n_expansions", "time_s", "stock"):
        assert key in data
    assert data["solved"] is True and data["routes"][0]["type"] == "mol"
    assert (tmp_path / "cli" / "routes.json").is_file()


def test_cli_route_text(tmp_path, toy_default_engine, toy_stock):
    res = CliRunner().invoke(app, ["route", PARACETAMOL, "--stock", toy_stock, "--output-dir", str(tmp_path / "t")])
    assert res.exit_code == 0, res.output
    assert "Best route:" in res.stdout and "Report:" in res.stdout


def test_cli_unknown_name_is_exit_2_with_a_hint(tmp_path):
    res = CliRunner().invoke(app, ["route", "unobtainium", "--output-dir", str(tmp_path)])
    assert res.exit_code == 2
    assert "SMILES" in res.stderr and "Traceback" not in res.stderr


def test_cli_bad_stock_file_is_exit_2(tmp_path):
    empty = tmp_path / "empty.smi"
    empty.write_text("")
    res = CliRunner().invoke(app, ["route", "CCO", "--stock", str(empty), "--output-dir", str(tmp_path / "o")])
    assert res.exit_code == 2 and "no usable SMILES" in res.stderr
    res = CliRunner().invoke(app, ["route", "CCO", "--stock", str(tmp_path / "missing.smi")])
    assert res.exit_code == 2 and "not found" in res.stderr


def _packaged_model_available() -> bool:
    from molx_agent.retro.templates_db import DATA_DIR, INDEX_FILE, TEMPLATES_FILE

    return (DATA_DIR / TEMPLATES_FILE).is_file() and (DATA_DIR / INDEX_FILE).is_file()


@pytest.mark.skipif(not _packaged_model_available(), reason="template library not built (scripts/build_templates.py)")
def test_cli_subprocess_paracetamol_with_packaged_model(tmp_path):
    out = tmp_path / "para"
    proc = subprocess.run(
        [sys.executable, "-m", "molx_agent.cli.main", "route", "paracetamol", "--json", "--time-limit", "30",
         "--output-dir", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["solved"] is True
    best = data["routes"][0]

    def leaves(node):
        kids = node.get("children") or []
        if not kids:
            return [node]
        return [leaf for rxn in kids for kid in rxn["children"] for leaf in leaves(kid)]

    assert all(leaf["in_stock"] and leaf["metadata"]["source"] for leaf in leaves(best))
    assert (out / "routes.json").is_file() and Path(data["files"]["html"]).is_file()

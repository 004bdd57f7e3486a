"""DataCleanerAgent, SARAgent and ReporterAgent on hand-built states, the SAR tools, and the graph end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from molx_agent.agents.data_cleaner import DataCleanerAgent
from molx_agent.agents.reporter import ReporterAgent
from molx_agent.agents.sar import SARAgent, mode_from_query
from tests.sar.sar_data import ANILIDES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "series.csv"


@pytest.fixture
def anilide_csv(tmp_path) -> Path:
    path = tmp_path / "anilides.csv"
    rows = ["Compound ID,SMILES,IC50 (uM)"] + [f"{i},{s},{v}" for i, s, v in ANILIDES] + ["A1,CCCC,1"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _state(files, query="analyse the SAR", language="en", options=None):
    inputs = {"files": [str(f) for f in files], "query": query, "options": options or {}}
    return {
        "user_query": query, "input_files": [str(f) for f in files], "language": language,
        "tasks": {
            "t1": {"id": "t1", "type": "data_cleaner", "inputs": inputs, "depends_on": [], "status": "pending"},
            "t2": {"id": "t2", "type": "sar", "inputs": inputs, "depends_on": ["t1"], "status": "pending"},
            "t3": {"id": "t3", "type": "reporter", "inputs": inputs, "depends_on": ["t2"], "status": "pending"},
        },
        "results": {}, "errors": [],
    }


def _step(agent, state, task_id):
    """Run one worker and apply its update as the graph's reducers do (entries merged per task id)."""
    state = {**state, "current_task_id": task_id}
    update = agent.run(state)
    return {**state, "tasks": {**state["tasks"], **update.get("tasks", {})},
            "results": {**state["results"], **update.get("results", {})},
            "errors": [*state.get("errors", []), *update.get("errors", [])]}


def test_cleaner_sar_reporter_chain(anilide_csv):
    state = _state([anilide_csv], query="analyse the SAR, report subset:A1,A2")
    state = _step(DataCleanerAgent(), state, "t1")
    r1 = state["results"]["t1"]
    assert state["tasks"]["t1"]["status"] == "done", r1
    for key in ("cleaned_file", "n_input", "n_clean", "n_errors", "n_duplicates_merged", "errors_file",
                "smiles_col", "activity_col", "id_col", "summary"):
        assert key in r1
    assert (r1["n_input"], r1["n_clean"], r1["n_errors"]) == (10, 9, 1)  # A1 reused on another structure
    assert "1 rows rejected" in r1["summary"]

    state = _step(SARAgent(), state, "t2")
    r2 = state["results"]["t2"]
    assert state["tasks"]["t2"]["status"] == "done", r2
    assert r2["top_compounds"][0] == {"id": "A1", "smiles": "CC(=O)Nc1ccc(Cl)cc1", "p_activity": 8.0, "lle": 5.7,
                                      "le": 0.996}
    assert r2["verdict"] in ("accept", "weak") and isinstance(r2["issues"], list)
    assert r2["mode"] == "subset:A1,A2" and r2["summary"].startswith("SAR analysis done")
    json.dumps(r2)  # results must be JSON-able

    state = _step(ReporterAgent(), state, "t3")
    r3 = state["results"]["t3"]
    assert state["tasks"]["t3"]["status"] == "done", r3
    html = [p for p in r3["report_paths"] if p.endswith(".html")]
    assert html and Path(html[0]).is_file() and "subset" in r3["summary"]


def test_reporter_recomputes_when_the_saved_result_is_gone(anilide_csv):
    state = _state([anilide_csv], query="R1 SAR please")
    for tid, agent in (("t1", DataCleanerAgent()), ("t2", SARAgent())):
        state = _step(agent, state, tid)
    saved = Path(state["results"]["t2"]["sar_result_file"])
    assert saved.is_file()
    saved.unlink()
    state = _step(ReporterAgent(), state, "t3")
    assert state["tasks"]["t3"]["status"] == "done", state["results"]["t3"]
    assert any(p.endswith(".html") for p in state["results"]["t3"]["report_paths"])


def test_chinese_summaries(anilide_csv):
    state = _state([anilide_csv], language="zh")
    state = _step(DataCleanerAgent(), state, "t1")
    assert "已清洗" in state["results"]["t1"]["summary"]
    state = _step(SARAgent(), state, "t2")
    assert "SAR 分析完成" in state["results"]["t2"]["summary"]


def test_missing_file_and_no_activity_fail_clearly(tmp_path):
    state = _step(DataCleanerAgent(), _state([]), "t1")
    assert state["tasks"]["t1"]["status"] == "failed"
    assert state["results"]["t1"]["error"]["code"] == "no_data_file"
    p = tmp_path / "structures.csv"
    p.write_text("smiles,name\nCCO,ethanol\nCCN,ethylamine\n", encoding="utf-8")
    state = _step(DataCleanerAgent(), _state([p]), "t1")
    assert state["tasks"]["t1"]["status"] == "done" and state["results"]["t1"]["n_clean"] == 2
    state = _step(SARAgent(), state, "t2")
    assert state["tasks"]["t2"]["status"] == "failed"
    assert state["results"]["t2"]["error"]["code"] == "no_activity_column"


@pytest.mark.parametrize("query,options,mode", [
    ("分析这些分子的 R1 SAR", None, "site:R1"),
    ("full SAR report", None, "full"),
    ("compare R1 and R2", None, "full"),
    ("report subset:C1,C2 only", None, "subset:C1,C2"),
    ("anything", {"mode": "site:R2"}, "site:R2"),
])
def test_mode_from_query(query, options, mode):
    assert mode_from_query(query, options) == mode


def test_sar_tools_are_registered_for_the_right_agents(anilide_csv):
    from molx_agent.agents.modules.tools import ToolRegistry

    ToolRegistry.reset()
    reg = ToolRegistry()
    cleaner = set(reg.get_tool_names(agent="data_cleaner"))
    sar = set(reg.get_tool_names(agent="sar"))
    assert {"extract_from_csv", "clean_compound_data", "save_cleaned_data"} <= cleaner
    assert "extract_from_csv" not in sar and {"rgroup_decomposition", "identify_activity_cliffs"} <= sar
    doc = json.loads(reg.get_tool("extract_from_csv").invoke({"file_path": str(anilide_csv)}))
    assert doc["mapping"]["smiles_col"] == "SMILES" and doc["n_rows"] == 10
    bad = json.loads(reg.get_tool("extract_from_csv").invoke({"file_path": str(anilide_csv) + ".nope"}))
    assert bad["error"]["code"] == "file_not_found"
    compounds = [{"id": i, "smiles": s, "p_activity": 6 + j / 4} for j, (i, s, _) in enumerate(ANILIDES)]
    cliffs = json.loads(reg.get_tool("identify_activity_cliffs").invoke({"compounds": compounds}))
    assert "pairs" in cliffs and cliffs["n_compared"] == 9
    ToolRegistry.reset()


def test_run_command_end_to_end(tmp_path):
    """`molx-agent run --query "分析这些分子的 R1 SAR" --data examples/series.csv` through the real graph."""
    from typer.testing import CliRunner

    from molx_agent.cli.main import app

    out = tmp_path / "answer"
    res = CliRunner().invoke(app, ["run", "--query", "分析这些分子的 R1 SAR", "--data", str(EXAMPLE),
                                   "--output-dir", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["intent"] == "sar_analysis" and doc["language"] == "zh"
    answer = doc["final_answer"]
    # answered in Chinese, about R1 (what was asked), with the site report written under --output-dir
    assert "SAR 分析完成" in answer and "系列 S1 的 R1 位" in answer and "site:R1" in answer
    html = [p for p in doc["report_paths"] if p.endswith(".html")]
    assert html and Path(html[0]).is_file() and Path(html[0]).resolve().is_relative_to(out.resolve())
    assert "R1 位" in Path(html[0]).read_text(encoding="utf-8")


def test_data_processing_intent_end_to_end(tmp_path):
    from typer.testing import CliRunner

    from molx_agent.cli.main import app

    p = tmp_path / "dupes.csv"
    p.write_text("id,smiles,IC50 (nM)\nA,CC(=O)Nc1ccc(Cl)cc1,10\nA,CC(=O)Nc1ccc(F)cc1,20\n"
                 "B,CC(=O)Nc1ccc(Br)cc1,15\nC,Brc1ccc(NC(C)=O)cc1,300\nD,CCO,abc\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["run", "--query", "clean this dataset", "--data", str(p),
                                   "--output-dir", str(tmp_path / "o"), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["intent"] == "data_processing"
    r = next(v for v in doc["results"].values() if "n_clean" in v)
    assert (r["n_input"], r["n_clean"], r["n_duplicates_merged"], r["n_errors"]) == (5, 2, 1, 2)
    assert r["errors_by_code"] == {"duplicate_id": 1, "non_numeric_activity": 1}
    assert "5 rows in, 2 compounds kept" in doc["final_answer"]


def test_cleaner_fails_when_no_row_survives_but_writes_the_reasons(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("smiles,IC50 (nM)\nxx,1\nC1CC,2\n", encoding="utf-8")
    state = _step(DataCleanerAgent(), _state([p]), "t1")
    assert state["tasks"]["t1"]["status"] == "failed"
    err = state["results"]["t1"]["error"]
    assert err["code"] == "no_valid_rows" and "invalid_smiles: 2" in err["message"]
    errors_csv = Path(err["hint"].removeprefix("see "))
    assert errors_csv.name == "errors.csv" and len(errors_csv.read_text(encoding="utf-8").splitlines()) == 3


def test_workers_write_under_the_orchestrators_output_dir(anilide_csv, tmp_path):
    from molx_agent.config import get_settings

    settings = get_settings(output_dir=str(tmp_path / "mine"))
    state = _state([anilide_csv])
    state = _step(DataCleanerAgent(settings=settings), state, "t1")
    assert Path(state["results"]["t1"]["output_dir"]).parent == tmp_path / "mine"
    state = _state([anilide_csv])
    del state["tasks"]["t2"]["depends_on"][0]  # no cleaner upstream: the SAR worker cleans the file itself
    state = _step(SARAgent(settings=settings), state, "t2")
    assert state["tasks"]["t2"]["status"] == "done", state["results"]["t2"]
    assert Path(state["results"]["t2"]["output_dir"]).parent == tmp_path / "mine"


def test_the_sheet_can_be_named_in_the_request(tmp_path):
    import pandas as pd

    book = tmp_path / "book.xlsx"
    with pd.ExcelWriter(book) as xw:
        pd.DataFrame({"smiles": [s for _, s, _ in ANILIDES], "pIC50": [7.0] * 9}).to_excel(xw, sheet_name="Ki",
                                                                                           index=False)
        pd.DataFrame({"note": ["assay"]}).to_excel(xw, sheet_name="notes", index=False)
    state = _step(DataCleanerAgent(), _state([book], query="clean this workbook"), "t1")
    err = state["results"]["t1"]["error"]
    assert err["code"] == "multiple_sheets" and "Ki, notes" in err["message"] and "sheet Ki" in err["hint"]
    state = _step(DataCleanerAgent(), _state([book], query="clean the Ki sheet"), "t1")
    assert state["results"]["t1"]["n_clean"] == 9 and state["results"]["t1"]["sheet"] == "Ki"
    state = _step(DataCleanerAgent(), _state([book], query="清洗Ki工作表"), "t1")
    assert state["results"]["t1"]["sheet"] == "Ki"


def test_reporter_rewrites_the_findings_for_its_own_mode(anilide_csv):
    state = _state([anilide_csv])
    for tid, agent in (("t1", DataCleanerAgent()), ("t2", SARAgent())):
        state = _step(agent, state, tid)
    assert state["results"]["t2"]["mode"] == "full"
    state["tasks"]["t3"]["inputs"] = {**state["tasks"]["t3"]["inputs"], "options": {"mode": "site:R1"}}
    state = _step(ReporterAgent(), state, "t3")
    r3 = state["results"]["t3"]
    assert state["tasks"]["t3"]["status"] == "done", r3
    html = Path(next(p for p in r3["report_paths"] if p.endswith(".html"))).read_text(encoding="utf-8")
    assert "Mode: site:R1" in html and "Site R1 of series S1" in html


def test_reporter_finds_a_sar_result_further_up_the_dag(anilide_csv):
    state = _state([anilide_csv])
    for tid, agent in (("t1", DataCleanerAgent()), ("t2", SARAgent())):
        state = _step(agent, state, tid)
    # synthesis_of_hits shape: sar -> (route steps) -> reporter
    state["tasks"]["t2b"] = {"id": "t2b", "type": "validation", "inputs": {}, "depends_on": ["t2"], "status": "done"}
    state["results"]["t2b"] = {"summary": "no route to validate"}
    state["tasks"]["t3"]["depends_on"] = ["t2b"]
    state = _step(ReporterAgent(), state, "t3")
    assert state["tasks"]["t3"]["status"] == "done", state["results"]["t3"]
    assert any(p.endswith(".html") for p in state["results"]["t3"]["report_paths"])


def test_reporter_helpers_generate_html_report_and_build_report_summary(anilide_csv, tmp_path):
    from molx_agent.agents.reporter import build_report_summary, generate_html_report, load_sar_result

    state = _state([anilide_csv])
    for tid, agent in (("t1", DataCleanerAgent()), ("t2", SARAgent())):
        state = _step(agent, state, tid)
    sar = state["results"]["t2"]
    result = load_sar_result(sar)  # read back from sar_result_file, not recomputed
    out = generate_html_report(result, tmp_path / "rep", mode="site:R9", language="en")
    assert Path(out["report_path"]).is_file() and out["mode"] == "full"
    assert "position R9 not found" in out["notes"][0]
    summary = build_report_summary([state["results"]["t1"], sar])
    assert summary["verdicts"]["sar"] == sar["verdict"] and summary["sar"]["top_compounds"][0]["id"] == "A1"


def test_validate_sar_data_tool():
    from molx_agent.tools.sar_tools import ValidateSARData

    ok = json.loads(ValidateSARData().invoke({"compounds": [
        {"id": i, "smiles": s, "p_activity": 9.0 - k * 0.4} for k, (i, s, _) in enumerate(ANILIDES)]}))
    assert ok["valid"] is True and ok["n_with_potency"] == len(ANILIDES)
    bad = json.loads(ValidateSARData().invoke({"compounds": [
        {"id": "a", "smiles": "CCO", "p_activity": 6.0}, {"id": "a", "smiles": "C1CC", "p_activity": 6.1}]}))
    assert bad["valid"] is False
    assert {i["code"] for i in bad["issues"]} >= {"invalid_smiles", "duplicate_ids", "too_few_compounds",
                                                  "no_potency_spread"}

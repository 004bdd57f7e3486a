"""``molx-agent sar``: run_sar and the command itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.sar import run_sar
from tests.sar.sar_data import ANILIDES


@pytest.fixture
def anilides_with_a_bad_row(tmp_path) -> Path:
    path = tmp_path / "anilides.csv"
    rows = ["Compound ID,SMILES,IC50 (uM)"] + [f"{i},{s},{v}" for i, s, v in ANILIDES] + ["BAD1,C1CC,3"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_run_sar_returns_the_documented_keys(anilides_with_a_bad_row, tmp_path):
    doc = run_sar(anilides_with_a_bad_row, output_dir=tmp_path / "out")
    for key in ("n_input", "n_clean", "n_errors", "n_duplicates_merged", "cliffs", "mmp_transforms", "report_path"):
        assert key in doc
    assert (doc["n_input"], doc["n_clean"], doc["n_errors"]) == (10, 9, 1)
    assert Path(doc["report_path"]).is_file()
    errors = pd.read_csv(doc["errors_file"])
    assert errors.loc[0, "id"] == "BAD1" and errors.loc[0, "row"] == 9


def test_cli_json_output(anilides_with_a_bad_row, tmp_path):
    res = CliRunner().invoke(app, ["sar", str(anilides_with_a_bad_row), "--output-dir", str(tmp_path / "o"), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["n_clean"] == 9 and doc["report_path"].endswith(".html")
    for c in doc["cliffs"]:
        assert {"row_a", "row_b", "id_a", "id_b", "tanimoto_ecfp4", "tanimoto_scaffold", "levenshtein",
                "fold_change", "sali"} <= set(c)


def test_cli_text_output_and_overrides(anilides_with_a_bad_row, tmp_path):
    res = CliRunner().invoke(app, ["sar", str(anilides_with_a_bad_row), "--activity-col", "IC50 (uM)", "--units",
                                   "uM", "--id-col", "Compound ID", "--output-dir", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "10 input rows -> 9 compounds" in res.stdout and "Report:" in res.stdout


@pytest.mark.parametrize("content,needle", [
    ("name,comment\nx,y\n", "no SMILES"),
    ("", "empty"),
    ("smiles,IC50 (nM)\nxx,1\nyy,2\n", "no usable row"),
    ("id,smiles,comment\nA,CCO,x\nB,CCN,y\n", "columns found: id, smiles, comment"),
    ("smiles,IC50 (nM)\n", "no data rows"),
    ("smiles,IC50 (nM)\nCCO,abc\nCCN,-3\n", "non_numeric_activity: 1, non_positive_activity: 1"),
])
def test_bad_inputs_give_a_clear_error_and_exit_2(tmp_path, content, needle):
    p = tmp_path / "bad.csv"
    p.write_text(content, encoding="utf-8")
    res = CliRunner().invoke(app, ["sar", str(p), "--output-dir", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert needle in res.stderr and "Traceback" not in res.stderr


def test_excel_with_several_sheets_needs_sheet(tmp_path):
    p = tmp_path / "book.xlsx"
    with pd.ExcelWriter(p) as xw:
        pd.DataFrame({"smiles": [s for _, s, _ in ANILIDES], "pIC50": [7.0 + i / 10 for i in range(9)]}).to_excel(
            xw, sheet_name="data", index=False)
        pd.DataFrame({"x": [1]}).to_excel(xw, sheet_name="notes", index=False)
    res = CliRunner().invoke(app, ["sar", str(p)])
    assert res.exit_code == 2 and "data, notes" in res.stderr
    res = CliRunner().invoke(app, ["sar", str(p), "--sheet", "data", "--output-dir", str(tmp_path / "o"), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["n_clean"] == 9


def test_console_script(anilides_with_a_bad_row, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "molx_agent.cli.main", "sar", str(anilides_with_a_bad_row),
                           "--mode", "site:R99", "--output-dir", str(tmp_path / "o")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "position R99 not found" in proc.stderr and "Traceback" not in proc.stderr


def _sar_json(tmp_path, path, *args):
    res = CliRunner().invoke(app, ["sar", str(path), "--output-dir", str(tmp_path / "o"), "--json", *args])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["n_input"] == doc["n_clean"] + doc["n_duplicates_merged"] + doc["n_errors"]
    return doc


def test_bad_rows_become_error_records_and_cliff_rows_still_point_at_the_input(tmp_path):
    """Non-numeric, negative, zero and unit-less garbage, an unknown unit, a duplicate ID on another structure and
    a replicate, interleaved with the anilides: every row is accounted for and row_a/row_b are input rows."""
    anil = [f"{i},{s},{v} uM" for i, s, v in ANILIDES]
    rows = ["id,smiles,IC50", "X1,CCO,abc", anil[0], "X2,CCN,-5", anil[1], "X3,CCC,0", anil[2], anil[3],
            "X4,CCCC,12 furlongs", anil[4], "A1,CCCCO,3 uM", anil[5], "A9b,CCC(=O)Nc1ccc(C)cc1,10 uM",
            anil[6], anil[7], anil[8], "X5,CCCN,"]
    p = tmp_path / "messy.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    doc = _sar_json(tmp_path, p)
    assert (doc["n_input"], doc["n_clean"], doc["n_duplicates_merged"], doc["n_errors"]) == (16, 9, 1, 6)
    assert doc["errors_by_code"] == {"non_numeric_activity": 1, "non_positive_activity": 2, "unknown_units": 1,
                                     "duplicate_id": 1, "missing_activity": 1}
    errors = pd.read_csv(doc["errors_file"])
    assert dict(zip(errors["row"], errors["code"], strict=True)) == {
        0: "non_numeric_activity", 2: "non_positive_activity", 4: "non_positive_activity",
        7: "unknown_units", 9: "duplicate_id", 15: "missing_activity"}
    src = pd.read_csv(p, dtype=str, keep_default_na=False)
    assert doc["cliffs"]
    for c in doc["cliffs"]:
        assert src.loc[c["row_a"], "id"] == c["id_a"] and src.loc[c["row_b"], "id"] == c["id_b"]
    # A9 (row 14) repeats A9b (row 11): one compound, listed under its first row and ID, both rows kept
    a9 = pd.read_csv(doc["cleaned_file"], dtype=str, keep_default_na=False).set_index("id").loc["A9b"]
    assert a9["rows"] == "11;14" and a9["merged_ids"] == "A9" and a9["n_replicates"] == "2"


def test_mixed_units_and_a_units_column(tmp_path):
    p = tmp_path / "units.csv"
    p.write_text("id,smiles,IC50,units\n" + "\n".join(
        f"{i},{s},{float(v) * 1000:g},nM" if k % 2 else f"{i},{s},{v},µM" for k, (i, s, v) in enumerate(ANILIDES))
        + "\nZ1,CCO,5,%inh\n", encoding="utf-8")
    doc = _sar_json(tmp_path, p)
    assert doc["n_clean"] == 9 and doc["errors_by_code"] == {"unknown_units": 1}
    assert any(w.startswith("mixed units converted row by row") for w in doc["warnings"])
    top = doc["top_compounds"][0]
    assert (top["id"], top["p_activity"]) == ("A1", 8.0)  # 0.010 µM


def test_modes_core_and_column_options_change_the_output(tmp_path):
    p = tmp_path / "plain.csv"
    p.write_text("A,B,C\n" + "\n".join(f"{i},{s},{v}" for i, s, v in ANILIDES) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["sar", str(p), "--output-dir", str(tmp_path / "x")])
    assert res.exit_code == 2 and "columns found: A, B, C" in res.stderr
    cols = ["--smiles-col", "B", "--activity-col", "C", "--units", "uM", "--id-col", "A"]
    full = _sar_json(tmp_path / "f", p, *cols)
    assert full["columns"]["source"] == "user" and full["top_compounds"][0] == {
        "id": "A1", "smiles": "CC(=O)Nc1ccc(Cl)cc1", "p_activity": 8.0}
    site = _sar_json(tmp_path / "s", p, *cols, "--mode", "site:R1")
    assert site["mode"] == "site:R1" and site["insights"][0].startswith("Site R1 of series S1")
    sub = _sar_json(tmp_path / "u", p, *cols, "--mode", "subset:A4,A9")
    assert sub["insights"][0].startswith("Chosen compounds (2): ")
    reports = {k: Path(d["report_path"]).read_text(encoding="utf-8") for k, d in
               (("full", full), ("site", site), ("subset", sub))}
    assert "Activity cliffs" in reports["full"] and "Activity cliffs" not in reports["site"]
    assert "Most potent compounds" in reports["subset"] and ">A1<" not in reports["subset"].split("Methods")[0] \
        .split("Chemical series")[0]
    core = _sar_json(tmp_path / "c", p, *cols, "--core", "O=C(C)Nc1ccccc1")
    assert [(s["core_source"], s["core_smiles"]) for s in core["series"]] == [("user", "O=C(C)Nc1ccccc1")]
    res = CliRunner().invoke(app, ["sar", str(p), *cols, "--mode", "subset:NOPE", "--output-dir", str(tmp_path / "n")])
    assert res.exit_code == 2 and "IDs not in the cleaned data: NOPE" in res.stderr


class _FakeLLM:
    """Answers the column question and the findings question like a chat model would."""

    def __init__(self):
        self.prompts = []

    def invoke(self, prompt):
        self.prompts.append(prompt)
        if "identify the columns" in prompt:
            reply = '{"smiles_col": "SMILES", "activity_col": "IC50 (uM)", "id_col": "Compound ID", "units": "uM"}'
        else:
            reply = '["Halogens at R1 are best (mean pIC50 7.4-7.8)."]'
        return type("Msg", (), {"content": reply})()


def test_an_llm_identifies_columns_and_words_findings_when_given(anilides_with_a_bad_row, tmp_path):
    llm = _FakeLLM()
    doc = run_sar(anilides_with_a_bad_row, output_dir=tmp_path / "o", llm=llm)
    assert doc["columns"]["source"] == "llm" and doc["insights_source"] == "llm"
    assert doc["insights"] == ["Halogens at R1 are best (mean pIC50 7.4-7.8)."] and len(llm.prompts) == 2
    # without one (the tests run with no LLM configured), the keywords and the deterministic summary
    res = CliRunner().invoke(app, ["sar", str(anilides_with_a_bad_row), "--output-dir", str(tmp_path / "r"),
                                   "--json"])
    doc = json.loads(res.stdout)
    assert doc["columns"]["source"] == "keywords" and doc["insights_source"] == "rules"
    res = CliRunner().invoke(app, ["sar", str(anilides_with_a_bad_row), "--llm", "openai"])
    assert res.exit_code == 2 and "OPENAI_API_KEY" in res.stderr and "Traceback" not in res.stderr
    res = CliRunner().invoke(app, ["sar", str(anilides_with_a_bad_row), "--llm", "gpt"])
    assert res.exit_code == 2 and "--llm must be one of" in res.stderr

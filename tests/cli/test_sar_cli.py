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
])
def test_bad_inputs_give_a_clear_error_and_exit_2(tmp_path, content, needle):
    p = tmp_path / "bad.csv"
    p.write_text(content, encoding="utf-8")
    res = CliRunner().invoke(app, ["sar", str(p), "--output-dir", str(tmp_path / "o")])
    assert res.exit_code == 2
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

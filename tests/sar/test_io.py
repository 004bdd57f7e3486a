"""Reading CSV, TSV, Excel and SDF files."""

from __future__ import annotations

import pandas as pd
import pytest

from molx_agent.errors import DataError
from molx_agent.sar.io import read_table


def test_csv_keeps_cells_as_written(anilide_csv):
    t = read_table(anilide_csv)
    assert t.format == "csv" and t.n_rows == 9
    assert t.columns == ["Compound ID", "SMILES", "IC50 (uM)"]
    assert t.df.loc[0, "IC50 (uM)"] == "0.010"  # not converted to a float


def test_tsv_is_sniffed(tmp_path):
    p = tmp_path / "series.tsv"
    p.write_text("name\tsmiles\tpIC50\nx\tCCO\t6.1\n", encoding="utf-8")
    t = read_table(p)
    assert t.format == "tsv" and t.columns == ["name", "smiles", "pIC50"]


@pytest.mark.parametrize("sep", [";", "\t"])
def test_csv_from_a_decimal_comma_locale_is_read_with_its_own_separator(tmp_path, sep):
    p = tmp_path / "export.csv"
    p.write_text(sep.join(["id", "smiles", "IC50 (nM)"]) + "\n" + sep.join(["A", "CCO", "1,5"]) + "\n",
                 encoding="utf-8")
    t = read_table(p)
    assert t.columns == ["id", "smiles", "IC50 (nM)"] and t.df.loc[0, "IC50 (nM)"] == "1,5"
    from molx_agent.sar.clean import clean_table

    assert clean_table(t).compounds.loc[0, "p_activity"] == pytest.approx(8.824, abs=1e-3)  # 1.5 nM


def test_a_windows_encoded_csv_is_read_and_said_so(tmp_path):
    p = tmp_path / "win.csv"
    p.write_bytes("id,smiles,IC50 (µM)\nA,CCO,0.5\n".encode("cp1252"))
    t = read_table(p)
    assert t.columns == ["id", "smiles", "IC50 (µM)"] and t.notes == ["win.csv is not UTF-8; read as cp1252"]
    from molx_agent.sar.clean import clean_table

    r = clean_table(t)
    assert r.mapping.units == "uM" and r.warnings[0] == "win.csv is not UTF-8; read as cp1252"


def test_excel_single_sheet_and_sheet_choice(tmp_path):
    p = tmp_path / "book.xlsx"
    with pd.ExcelWriter(p) as xw:
        pd.DataFrame({"smiles": ["CCO"], "IC50 (nM)": [10]}).to_excel(xw, sheet_name="assay", index=False)
        pd.DataFrame({"note": ["x"]}).to_excel(xw, sheet_name="readme", index=False)
    with pytest.raises(DataError) as exc:
        read_table(p)
    assert exc.value.code == "multiple_sheets"
    assert "assay" in exc.value.message and "readme" in exc.value.message
    t = read_table(p, sheet="assay")
    assert t.sheet == "assay" and t.df.loc[0, "smiles"] == "CCO"
    with pytest.raises(DataError) as exc:
        read_table(p, sheet="nope")
    assert exc.value.code == "unknown_sheet"


def test_sdf_properties_become_columns(tmp_path):
    from rdkit import Chem

    p = tmp_path / "mols.sdf"
    w = Chem.SDWriter(str(p))
    for name, smi, ic50 in [("a", "CCO", "12"), ("b", "c1ccccc1O", "3.4")]:
        m = Chem.MolFromSmiles(smi)
        m.SetProp("_Name", name)
        m.SetProp("IC50_nM", ic50)
        w.write(m)
    w.close()
    t = read_table(p)
    assert t.format == "sdf"
    assert list(t.df["SMILES"]) == ["CCO", "Oc1ccccc1"]
    assert list(t.df["IC50_nM"]) == ["12", "3.4"]
    assert list(t.df["_Name"]) == ["a", "b"]


def test_an_sdf_record_rdkit_cannot_parse_keeps_its_id_and_potency(tmp_path):
    from rdkit import Chem

    from molx_agent.sar.clean import clean_table

    blocks = []
    for name, smi, ki in [("good-1", "CCO", "12"), ("broken-2", "c1ccccc1O", "3.4"), ("good-3", "CCN", "7")]:
        m = Chem.MolFromSmiles(smi)
        m.SetProp("_Name", name)
        m.SetProp("Ki_nM", ki)
        blocks.append(Chem.MolToMolBlock(m) + f">  <Ki_nM>\n{ki}\n\n$$$$\n")
    # phenol's first ring bond made triple: a pentavalent carbon, RDKit refuses the record
    blocks[1] = blocks[1].replace("\n  1  2  1  0\n", "\n  1  2  3  0\n", 1)
    p = tmp_path / "mols.sdf"
    p.write_text("".join(blocks), encoding="utf-8")
    assert Chem.SDMolSupplier(str(p))[1] is None
    t = read_table(p)
    assert list(t.df["_Name"]) == ["good-1", "broken-2", "good-3"] and list(t.df["Ki_nM"]) == ["12", "3.4", "7"]
    r = clean_table(t)
    assert [(e.row, e.id, e.code) for e in r.errors] == [(1, "broken-2", "unparsable_structure")]
    assert r.n_input == 3 and r.n_clean == 2


def test_empty_rows_in_the_middle_keep_row_numbers_and_trailing_ones_go(tmp_path):
    from molx_agent.sar.clean import clean_table

    p = tmp_path / "gaps.csv"
    p.write_text("id,smiles,pKi\nA,CCO,7\n,,\nB,CCN,6\n,,\n,,\n", encoding="utf-8")
    t = read_table(p)
    assert t.n_rows == 3 and list(t.df["id"]) == ["A", "", "B"]
    assert list(pd.read_csv(p)["id"].iloc[:3].fillna("")) == list(t.df["id"])  # same row numbers as pandas
    r = clean_table(t)
    assert [(e.row, e.code) for e in r.errors] == [(1, "empty_row")]
    assert r.compounds.set_index("id").loc["B", "rows"] == [2]


@pytest.mark.parametrize("content,code", [("", "empty_file"), ("smiles,IC50\n", "empty_file")])
def test_empty_files(tmp_path, content, code):
    p = tmp_path / "empty.csv"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_table(p)
    assert exc.value.code == code


def test_missing_and_unsupported_files(tmp_path):
    with pytest.raises(DataError) as exc:
        read_table(tmp_path / "nope.csv")
    assert exc.value.code == "file_not_found"
    p = tmp_path / "data.json"
    p.write_text("{}", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_table(p)
    assert exc.value.code == "unsupported_format"

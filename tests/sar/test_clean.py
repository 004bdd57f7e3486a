"""Column detection, units, standardisation, replicates and error records."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from molx_agent.errors import DataError
from molx_agent.sar.clean import clean_table, load_cleaned, require_valid, save_cleaned
from molx_agent.sar.columns import detect_columns, parse_activity_cell, to_p_activity
from molx_agent.sar.io import RawTable, read_table


def _table(rows: dict) -> RawTable:
    return RawTable(pd.DataFrame(rows).astype(str), "mem.csv", "csv")


def test_keywords_find_columns_and_units(anilide_csv):
    m = detect_columns(read_table(anilide_csv).df)
    assert (m.smiles_col, m.activity_col, m.id_col) == ("SMILES", "IC50 (uM)", "Compound ID")
    assert m.units == "uM" and m.activity_label == "pIC50" and m.source == "keywords"


def test_id_column_of_a_one_row_table_and_a_constant_column():
    assert detect_columns(pd.DataFrame({"id": ["A"], "smiles": ["CCO"], "pKi": ["7"]})).id_col == "id"
    assert detect_columns(pd.DataFrame({"id": ["A", "A"], "smiles": ["CCO", "CCN"], "pKi": ["7", "6"]})).id_col is None


def test_p_value_column_needs_no_units():
    m = detect_columns(pd.DataFrame({"Smiles": ["CCO"], "pKi": ["7.2"], "Name": ["x"]}))
    assert m.activity_col == "pKi" and m.units == "log" and m.activity_label == "pKi"


def test_no_smiles_column_lists_the_columns():
    with pytest.raises(DataError) as exc:
        detect_columns(pd.DataFrame({"name": ["a"], "IC50": ["3"]}))
    assert exc.value.code == "no_smiles_column"
    assert "name" in exc.value.message and "IC50" in exc.value.message


def test_no_activity_column_lists_the_columns():
    with pytest.raises(DataError) as exc:
        detect_columns(pd.DataFrame({"smiles": ["CCO", "CCN"], "comment": ["a", "b"]}))
    assert exc.value.code == "no_activity_column" and "comment" in exc.value.message


def test_unknown_named_column_and_units():
    df = pd.DataFrame({"smiles": ["CCO"], "IC50": ["3"]})
    with pytest.raises(DataError) as exc:
        detect_columns(df, activity_col="Potency")
    assert exc.value.code == "unknown_column"
    with pytest.raises(DataError) as exc:
        detect_columns(df, units="furlongs")
    assert exc.value.code == "unknown_units"


class FakeLLM:
    def __init__(self, reply: str):
        self.reply = reply
        self.prompts: list[str] = []

    def invoke(self, prompt):
        self.prompts.append(prompt)
        return type("Msg", (), {"content": self.reply})()


def test_injected_llm_is_used_and_validated():
    df = pd.DataFrame({"structure_text": ["CCO", "CCN"], "readout": ["12", "40"], "code": ["a", "b"]})
    llm = FakeLLM('```json\n{"smiles_col": "structure_text", "activity_col": "readout", "id_col": "code", "units": "uM"}\n```')
    m = detect_columns(df, llm=llm)
    assert m.source == "llm" and (m.smiles_col, m.activity_col, m.id_col, m.units) == (
        "structure_text", "readout", "code", "uM")
    assert llm.prompts and "readout" in llm.prompts[0]


def test_llm_naming_a_missing_column_falls_back_to_keywords(anilide_csv):
    llm = FakeLLM('{"smiles_col": "Structure", "activity_col": "IC50"}')
    m = detect_columns(read_table(anilide_csv).df, llm=llm)
    assert m.source == "keywords" and m.smiles_col == "SMILES"


@pytest.mark.parametrize("text,expected", [
    ("12.5", ("=", 12.5, None)), ("<10 nM", ("<", 10.0, "nM")), ("1,000", ("=", 1000.0, None)),
    ("1,5 µM", ("=", 1.5, "uM")), ("n.d.", None), ("10 apples", None),
])
def test_activity_cells(text, expected):
    assert parse_activity_cell(text) == expected


def test_p_activity_conversion():
    assert to_p_activity(10, "nM") == pytest.approx(8.0)
    assert to_p_activity(1, "uM") == pytest.approx(6.0)
    assert to_p_activity(6.5, "log") == 6.5


def test_messy_rows_become_error_records_and_counts_reconcile(messy_csv):
    r = clean_table(read_table(messy_csv))
    assert r.n_input == 12
    assert r.n_input == r.n_clean + r.n_duplicates_merged + r.n_errors
    codes = {e.row: e.code for e in r.errors}
    assert codes == {5: "invalid_smiles", 6: "non_numeric_activity", 7: "non_positive_activity",
                     8: "missing_smiles", 9: "duplicate_id", 11: "missing_activity"}
    assert r.n_duplicates_merged == 2 and r.n_clean == 4
    comp = r.compounds.set_index("id")
    # benzoic acid written two ways: one compound, mean of pKi 7 and 6.52, spread reported
    assert comp.loc["M2", "n_replicates"] == 2 and comp.loc["M2", "rows"] == [1, 2]
    assert comp.loc["M2", "p_activity"] == pytest.approx((7.0 + 6.5229) / 2, abs=1e-3)
    assert comp.loc["M2", "p_activity_spread"] == pytest.approx(0.477, abs=1e-3)
    # HCl salt stripped to the parent and merged with the free base
    assert comp.loc["M3", "smiles"] == "CCN(CC)CC" and comp.loc["M3", "merged_ids"] == ["M3b"]
    # ">10000 nM" is kept, flagged as censored on the p scale
    assert comp.loc["M8", "qualifier"] == "<" and comp.loc["M8", "p_activity"] == pytest.approx(5.0)


def test_mixed_units_are_converted_row_by_row():
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC"], "IC50": ["10 nM", "1 uM", "0.5 mM"]}))
    assert list(r.compounds["p_activity"].round(3)) == [8.0, 6.0, 3.301]
    assert any("mixed units" in w for w in r.warnings)


def test_units_column_is_read_per_row():
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC"], "Standard Value": ["10", "1", "5"],
                            "Standard Units": ["nM", "uM", "parsecs"]}))
    assert list(r.compounds["p_activity"].round(3)) == [8.0, 6.0]
    assert [e.code for e in r.errors] == ["unknown_units"]


def test_unstated_units_are_assumed_and_said():
    r = clean_table(_table({"smiles": ["CCO", "CCN"], "activity": ["150", "2000"]}))
    assert r.mapping.units == "nM" and any("read as nM" in w for w in r.warnings)
    r = clean_table(_table({"smiles": ["CCO", "CCN"], "activity": ["6.2", "7.9"]}))
    assert r.mapping.units == "log" and any("p-values" in w for w in r.warnings)


def test_bare_numbers_beside_stated_units_are_concentrations_not_p_values():
    # "8" in a column where the other cells say nM is 8 nM (pIC50 8.1), not a pIC50 of 8
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC"], "IC50": ["10 nM", "8", "20 nM"]}))
    assert list(r.compounds["p_activity"].round(3)) == [8.0, 8.097, 7.699]
    assert r.mapping.units == "nM"
    assert any("1 value(s) of 'IC50' have no unit while other cells state nM" in w for w in r.warnings)
    assert not any("p-values" in w for w in r.warnings)
    # cells in nM and in µM: a bare "15" could be either (1000-fold apart), so it is an error record
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC", "CCCC"], "IC50": ["10 nM", "0.02 uM", "15", "2 µM"]}))
    assert [(e.row, e.code, e.reason) for e in r.errors] == [
        (2, "missing_units", "activity '15' has no unit and the column mixes nM, uM")]
    assert r.n_clean == 3
    # --units says what a bare number is
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC"], "IC50": ["10 nM", "0.02 uM", "15"]}), units="nM")
    assert r.errors == [] and list(r.compounds["p_activity"].round(3)) == [8.0, 7.699, 7.824]
    # every cell with its unit: nothing was assumed, so nothing to warn about
    r = clean_table(_table({"smiles": ["CCO", "CCN"], "IC50": ["10 nM", "20 nM"]}))
    assert r.warnings == [] and r.mapping.units == "nM"


def test_a_unit_we_do_not_know_in_a_cell_is_said_so():
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC", "CCCC", "CCCO"],
                            "IC50": ["10 nM", "45 %", "12 furlongs", "20 nM", "30 nM"]}))
    assert [(e.code, e.reason) for e in r.errors] == [("unknown_units", "unknown units '%' in '45 %'"),
                                                      ("unknown_units", "unknown units 'furlongs' in '12 furlongs'")]


def test_missing_value_markers_are_missing_activities_not_garbage():
    r = clean_table(_table({"smiles": ["CCO", "CCN", "CCC", "CCCC"], "IC50 (nM)": ["NA", "n/a", "-", "12"]}))
    assert [e.code for e in r.errors] == ["missing_activity"] * 3
    assert [e.value for e in r.errors] == ["NA", "n/a", "-"]
    assert r.n_input == r.n_clean + r.n_duplicates_merged + r.n_errors == 4


def test_all_invalid_smiles_is_a_clear_error(tmp_path):
    r = clean_table(_table({"smiles": ["xx", "yy"], "IC50 (nM)": ["1", "2"]}))
    assert r.n_clean == 0 and r.n_errors == 2
    save_cleaned(r, tmp_path)
    with pytest.raises(DataError) as exc:
        require_valid(r)
    assert exc.value.code == "no_valid_rows" and "invalid_smiles: 2" in exc.value.message


def test_save_and_load_roundtrip(messy_csv, tmp_path):
    r = save_cleaned(clean_table(read_table(messy_csv)), tmp_path)
    summary = json.loads((tmp_path / "clean_summary.json").read_text())
    assert summary["n_input"] == 12 and summary["errors_by_code"]["invalid_smiles"] == 1
    errors = pd.read_csv(tmp_path / "errors.csv")
    assert len(errors) == r.n_errors and set(errors.columns) >= {"row", "code", "reason"}
    back = load_cleaned(tmp_path)
    assert back.counts() == r.counts()
    assert list(back.compounds["id"]) == list(r.compounds["id"])
    assert back.compounds.set_index("id").loc["M2", "rows"] == [1, 2]
    assert back.compounds["p_activity"].round(6).tolist() == r.compounds["p_activity"].round(6).tolist()


@pytest.mark.parametrize("smiles", [
    "CC(=O)Nc1ccc(O)cc1", "CC[NH+](CC)CC", "[13CH3]C(=O)Oc1ccccc1C(=O)O", "CC(=O)[O-]", "C[N+](C)(C)C",
    "OC(=O)CC([O-])=O", "CCO", "c1ccccc1C(=O)O.[Na]", "CC(=O)Nc1ccc(O)cc1.Cl", "N[C@@H](C)C(=O)O",
])
def test_standardisation_matches_the_chembl_parent(smiles):
    from chembl_structure_pipeline import standardizer
    from rdkit import Chem

    from molx_agent.sar.clean import standardize_smiles

    parent, _ = standardizer.get_parent_mol(standardizer.standardize_mol(Chem.MolFromSmiles(smiles)))
    expected = Chem.MolToSmiles(parent)
    if "." in expected:  # multi-component parents keep their largest organic component here
        expected = max(expected.split("."), key=len)
    assert standardize_smiles(smiles)[0] == expected

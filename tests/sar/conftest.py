"""Fixtures of the SAR tests, named by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sar.sar_data import ANILIDES

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def gsk3b_series_csv() -> Path:
    """60 real GSK-3β inhibitors with Ki (nM) (examples/series.csv, from MoleculeACE CHEMBL262)."""
    return REPO / "examples" / "series.csv"


@pytest.fixture
def anilide_csv(tmp_path) -> Path:
    path = tmp_path / "anilides.csv"
    lines = ["Compound ID,SMILES,IC50 (uM)"] + [f"{i},{s},{v}" for i, s, v in ANILIDES]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def messy_csv(tmp_path) -> Path:
    """Every kind of bad row, one each, plus replicates and a salt form."""
    rows = [
        "id,smiles,Ki (nM)",
        "M1,CC(=O)Nc1ccc(Cl)cc1,10",          # 0 kept
        "M2,c1ccccc1C(=O)O,100",             # 1 kept
        "M2b,OC(=O)c1ccccc1,300",            # 2 replicate of M2 (other SMILES writing)
        "M3,CCN(CC)CC.Cl,50",                 # 3 kept (HCl salt -> parent)
        "M3b,CCN(CC)CC,60",                   # 4 replicate of M3 (free base)
        "M4,not_a_smiles,20",                 # 5 invalid_smiles
        "M5,CCO,n.d.",                        # 6 non_numeric_activity
        "M6,CCCO,-5",                         # 7 non_positive_activity
        "M7,,30",                             # 8 missing_smiles
        "M1,CCCCCCO,40",                      # 9 duplicate_id (M1 on another structure)
        "M8,CCOC(=O)c1ccccc1,>10000",         # 10 kept, censored
        "M9,c1ccc2ccccc2c1,",                 # 11 missing_activity
    ]
    path = tmp_path / "messy.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path

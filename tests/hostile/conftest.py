"""Shared pieces of the hostile-input suite: hypothesis settings, strategies and a toy engine everywhere.

Every test here runs on the toy engine (a table-driven single-step model and a two-line stock), so no packaged
model loads and the whole suite stays fast enough for CI; hypothesis runs few examples, without deadlines
(timings vary on shared machines) and derandomised (the same examples on every run).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from molx_agent.retro.engine import RetroEngine
from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

settings.register_profile(
    "hostile", max_examples=25, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
#: fewer examples for properties whose every example runs a whole command
FEW = settings(settings.get_profile("hostile"), max_examples=12)
HOSTILE = settings.get_profile("hostile")

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
VALID_SMILES = ["CCO", "c1ccccc1", PARACETAMOL, "[NH4+]", "[Fe]", "CC(=O)O", "N#N", "C1CC1", "O=C=O"]
#: whitespace RDKit stops at (and Unicode spaces a copy-paste brings)
WHITESPACE = [" ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "  "]
SMILES_ALPHABET = "CNOSPFIBrclnos()[]=#@+-/\\%0123456789.H"

#: SMILES-like text: the SMILES alphabet plus whitespace, control characters and a few non-ASCII letters
smiles_like = st.text(alphabet=SMILES_ALPHABET + " \t\n\x00\x07\u00a0éß中", max_size=40)
#: two valid SMILES joined by whitespace: the old behaviour read only the first one
smiles_with_space = st.builds(lambda a, ws, b: a + ws + b, st.sampled_from(VALID_SMILES), st.sampled_from(WHITESPACE),
                              st.sampled_from(VALID_SMILES))

#: JSON values, deeply nested ones included
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


def nested_json(depth: int) -> str:
    """``[[[...]]]`` ``depth`` levels deep (a RecursionError for Python's parser from about 1,000)."""
    return "[" * depth + "]" * depth


#: bytes an argument or data file may hold: JSON, text, UTF-16, gzip, binary, deep nesting
hostile_file_bytes = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    json_values.map(lambda v: json.dumps(v).encode("utf-16")),
    st.text(max_size=200).map(lambda t: t.encode("utf-8")),
    st.text(max_size=200).map(lambda t: t.encode("latin-1", "replace")),
    st.sampled_from([b"\x1f\x8b\x08\x00garbage", b"PK\x03\x04zip", nested_json(5000).encode(), b"", b"\xff\xfe"]),
)


@pytest.fixture
def toy_model() -> DictSingleStepModel:
    return DictSingleStepModel({
        PARACETAMOL: [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation"),
                      (["CC(=O)Cl", "Nc1ccc(O)cc1"], 0.3, "N-acylation", "acylation")],
        "Nc1ccc(O)cc1": [(["O=[N+]([O-])c1ccc(O)cc1"], 0.7, "nitro reduction", "reduction")],
    })


@pytest.fixture
def toy_stock_file(tmp_path):
    path = tmp_path / "toy-stock.smi"
    path.write_text("CC(=O)OC(C)=O\nCC(=O)Cl\nNc1ccc(O)cc1\nO=[N+]([O-])c1ccc(O)cc1\n", encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def toy_engine(monkeypatch, toy_model, toy_stock_file):
    """The process-wide engine and the packaged model are the toy ones in every hostile test."""
    import molx_agent.retro.engine as engine_mod
    import molx_agent.retro.single_step as single_step

    engine = RetroEngine(model=toy_model, stock=FileStock(toy_stock_file))
    monkeypatch.setattr(engine_mod, "_DEFAULT", engine)
    monkeypatch.setattr(single_step, "load_single_step_model", lambda: toy_model)
    return engine


def assert_clean_failure(output: str) -> None:
    """What a user sees is never a traceback, an internal error or one of our temporary file names."""
    assert "Traceback" not in output, output[-2000:]
    assert "internal error" not in output, output[-2000:]
    assert ".tmp" not in output, output[-2000:]

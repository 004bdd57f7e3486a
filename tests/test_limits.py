"""``molx_agent.limits``: the input limits in one place, read from the settings."""

from __future__ import annotations

import pytest

from molx_agent.config import reset_settings_cache
from molx_agent.errors import ChemistryError, ValidationError
from molx_agent.limits import (
    check_query,
    check_smiles_text,
    current_limits,
    json_depth_exceeds,
    parse_json_text,
)


def test_defaults_and_environment(monkeypatch):
    lim = current_limits()
    assert (lim.max_smiles_chars, lim.max_heavy_atoms, lim.max_retro_heavy_atoms, lim.max_query_chars,
            lim.max_json_depth) == (10_000, 5_000, 150, 20_000, 64)
    monkeypatch.setenv("MOLX_MAX_QUERY_CHARS", "500")
    reset_settings_cache()
    assert current_limits().max_query_chars == 500
    with pytest.raises(ValidationError) as exc:
        check_query("x" * 501)
    assert exc.value.code == "query_too_long" and "limit is 500" in exc.value.message


@pytest.mark.parametrize(("query", "code"), [(123, "invalid_query"), (None, "invalid_query"), ("  ", "empty_query")])
def test_check_query_names_the_problem(query, code):
    with pytest.raises(ValidationError) as exc:
        check_query(query)
    assert exc.value.code == code


@pytest.mark.parametrize(("text", "code"), [
    ("CC O", "smiles_contains_whitespace"), ("CC\u3000O", "smiles_contains_whitespace"),
    ("C\x00C", "invalid_smiles"), ("", "invalid_smiles"), (5, "invalid_smiles"), ("C" * 10_001, "smiles_too_long"),
])
def test_check_smiles_text(text, code):
    with pytest.raises(ChemistryError) as exc:
        check_smiles_text(text)
    assert exc.value.code == code
    assert len(str(exc.value)) < 400


def test_parse_json_text_depth_and_errors():
    assert parse_json_text('{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    assert parse_json_text("[" * 64 + "]" * 64) is not None
    for text in ("[" * 65 + "]" * 65, "[" * 100_000 + "]" * 100_000):
        with pytest.raises(ValidationError) as exc:
            parse_json_text(text, "--args")
        assert exc.value.code == "json_too_deep" and "--args" in exc.value.message
    with pytest.raises(ValidationError) as exc:
        parse_json_text("{bad", "--args")
    assert exc.value.code == "invalid_json" and "line 1 column 2" in exc.value.message
    with pytest.raises(ValidationError) as exc:
        parse_json_text(b'"\xff"', "--args")
    assert exc.value.code == "invalid_json"


def test_json_depth_is_measured_without_recursion():
    deep: list = []
    node = deep
    for _ in range(50_000):
        node.append([])
        node = node[0]
    assert json_depth_exceeds(deep, 64) and not json_depth_exceeds([[1], {"a": [2]}], 3)

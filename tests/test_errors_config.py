from __future__ import annotations

import pytest

from molx_agent.config import Settings, get_settings
from molx_agent.errors import ChemistryError, ErrorSeverity, RetroError, ValidationError


def test_error_to_dict_carries_code_severity_value():
    err = ChemistryError("invalid_smiles", "Failed to parse SMILES", ErrorSeverity.HIGH, value="C1CC")
    d = err.to_dict()
    assert d == {
        "error_type": "ChemistryError",
        "code": "invalid_smiles",
        "message": "Failed to parse SMILES",
        "severity": "high",
        "value": "C1CC",
    }
    assert isinstance(err, RetroError)
    assert ValidationError().code == "validation_error"
    assert RetroError().severity is ErrorSeverity.MEDIUM


def test_settings_precedence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert Settings().max_iterations == 3  # default
    (tmp_path / ".env").write_text("MAX_ITERATIONS=4\nMOLX_LLM_MODEL=from-dotenv\n")
    assert Settings().max_iterations == 4  # .env beats default
    monkeypatch.setenv("MAX_ITERATIONS", "5")
    assert Settings().max_iterations == 5  # env beats .env
    assert Settings().llm_model == "from-dotenv"
    assert get_settings(max_iterations=7).max_iterations == 7  # explicit beats env


def test_provider_auto_resolution(monkeypatch):
    assert Settings().resolved_provider == "rules"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert Settings().resolved_provider == "openai"
    assert Settings(llm_provider="rules").resolved_provider == "rules"


def test_settings_reject_bad_values(monkeypatch):
    from pydantic import ValidationError as PydanticValidationError

    monkeypatch.setenv("MAX_ITERATIONS", "zero")
    with pytest.raises(PydanticValidationError):
        Settings()


@pytest.mark.parametrize(
    ("cls", "code"),
    [(ValidationError, "validation_error"), ("ExecutionError", "execution_error"), ("SkillError", "skill_error"),
     (ChemistryError, "chemistry_error"), ("ConfigError", "config_error"), ("DataError", "data_error")],
)
def test_hierarchy_default_codes_and_severity(cls, code):
    import molx_agent.errors as errors

    cls = getattr(errors, cls) if isinstance(cls, str) else cls
    err = cls(message="boom", severity="critical", value=[1, 2], hint="try again")
    assert isinstance(err, RetroError) and isinstance(err, Exception)
    assert err.code == code and err.severity is ErrorSeverity.CRITICAL
    d = err.to_dict()
    assert d["error_type"] == cls.__name__ and d["severity"] == "critical"
    assert d["value"] == "[1, 2]" and d["hint"] == "try again"
    assert "boom" in str(err) and "try again" in str(err)


def test_severity_levels_and_bad_severity():
    assert [s.value for s in ErrorSeverity] == ["low", "medium", "high", "critical"]
    with pytest.raises(ValueError):
        RetroError("x", "y", "fatal")

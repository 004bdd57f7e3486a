"""Settings: every field's environment variable and default, and precedence explicit > env > .env > default."""

from __future__ import annotations

from pathlib import Path

import pytest

from molx_agent.config import Settings, get_settings
from molx_agent.errors import ConfigError

#: field -> (environment variable, default, a value for .env, a value for the environment, an explicit value)
FIELDS: dict[str, tuple[str, object, str, str, object]] = {
    "openai_api_key": ("OPENAI_API_KEY", None, "sk-dotenv", "sk-env", "sk-explicit"),
    "openai_base_url": ("OPENAI_BASE_URL", None, "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1",
                        "http://127.0.0.1:3/v1"),
    "llm_provider": ("MOLX_LLM_PROVIDER", "auto", "openai", "rules", "auto"),
    "llm_model": ("MOLX_LLM_MODEL", "gpt-4o-mini", "model-dotenv", "model-env", "model-explicit"),
    "llm_temperature": ("MOLX_LLM_TEMPERATURE", 0.0, "0.3", "0.6", 0.9),
    "llm_timeout": ("MOLX_LLM_TIMEOUT", 60.0, "11", "22", 33.0),
    "llm_max_retries": ("MOLX_LLM_MAX_RETRIES", 1, "2", "3", 4),
    "llm_structured_output": ("MOLX_LLM_STRUCTURED_OUTPUT", "json_schema", "function_calling", "json_mode", "none"),
    "retro_mode": ("MOLX_RETRO_MODE", "auto", "guided", "auto", "guided"),
    "mcp_enabled": ("MCP_ENABLED", False, "true", "false", True),
    "mcp_servers_config": ("MCP_SERVERS_CONFIG", Path("config/mcp_servers.json"), "dotenv.json", "env.json",
                           Path("explicit.json")),
    "output_dir": ("MOLX_OUTPUT_DIR", Path("./outputs"), "out-dotenv", "out-env", Path("out-explicit")),
    "molx_home": ("MOLX_HOME", Path("~/.molx"), "home-dotenv", "home-env", Path("home-explicit")),
    "max_iterations": ("MAX_ITERATIONS", 3, "4", "5", 7),
    "max_smiles_chars": ("MOLX_MAX_SMILES_CHARS", 10_000, "1000", "2000", 3000),
    "max_heavy_atoms": ("MOLX_MAX_HEAVY_ATOMS", 5_000, "100", "200", 300),
    "max_retro_heavy_atoms": ("MOLX_MAX_RETRO_HEAVY_ATOMS", 150, "100", "200", 300),
    "max_query_chars": ("MOLX_MAX_QUERY_CHARS", 20_000, "1000", "2000", 3000),
    "max_json_depth": ("MOLX_MAX_JSON_DEPTH", 64, "10", "20", 30),
    "max_json_mb": ("MOLX_MAX_JSON_MB", 20.0, "1", "2", 3.0),
    "max_data_file_mb": ("MOLX_MAX_DATA_FILE_MB", 200.0, "10", "20", 30.0),
    "lock_timeout": ("MOLX_LOCK_TIMEOUT", 60.0, "1", "2", 3.0),
}


def _typed(field: str, raw: str) -> object:
    """What a raw string becomes once the setting parses it."""
    default = FIELDS[field][1]
    if isinstance(default, bool):
        return raw == "true"
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, Path):
        return Path(raw)
    return raw


@pytest.fixture
def clean_env(tmp_path, monkeypatch):
    """No molx variable in the environment and an empty working directory (no .env)."""
    for env, *_ in FIELDS.values():
        monkeypatch.delenv(env, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_documented_field_is_covered():
    assert set(FIELDS) == set(Settings.model_fields)
    for field, (env, *_rest) in FIELDS.items():
        assert Settings.model_fields[field].validation_alias == env


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_default(clean_env, field):
    assert getattr(Settings(), field) == FIELDS[field][1]


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_precedence_explicit_env_dotenv_default(clean_env, monkeypatch, field):
    env, default, dotenv_value, env_value, explicit = FIELDS[field]
    assert getattr(get_settings(), field) == default
    (clean_env / ".env").write_text(f"{env}={dotenv_value}\n", encoding="utf-8")
    assert getattr(Settings(), field) == _typed(field, dotenv_value)  # .env beats the default
    monkeypatch.setenv(env, env_value)
    assert getattr(Settings(), field) == _typed(field, env_value)  # env beats .env
    assert getattr(get_settings(**{field: explicit}), field) == explicit  # explicit beats env


def test_env_names_are_case_insensitive_and_none_overrides_are_ignored(clean_env, monkeypatch):
    monkeypatch.setenv("max_iterations", "6")
    assert Settings().max_iterations == 6
    assert get_settings(max_iterations=None).max_iterations == 6


def test_provider_auto_resolution(clean_env, monkeypatch):
    assert Settings().resolved_provider == "rules"
    assert Settings(openai_api_key="sk-x").resolved_provider == "openai"
    assert Settings(openai_base_url="http://127.0.0.1:9/v1").resolved_provider == "openai"
    assert Settings(openai_api_key="sk-x", llm_provider="rules").resolved_provider == "rules"
    assert Settings(llm_provider="openai").resolved_provider == "openai"


def test_home_dir_expands_user(clean_env):
    assert Settings().home_dir == Path("~/.molx").expanduser()


@pytest.mark.parametrize(
    ("env", "raw"),
    [("MAX_ITERATIONS", "zero"), ("MAX_ITERATIONS", "0"), ("MOLX_LLM_PROVIDER", "bogus"),
     ("MOLX_LLM_TEMPERATURE", "hot"), ("MCP_ENABLED", "perhaps")],
)
def test_invalid_values_are_config_errors_naming_the_variable(clean_env, monkeypatch, env, raw):
    monkeypatch.setenv(env, raw)
    with pytest.raises(ConfigError) as info:
        get_settings()
    assert info.value.code == "invalid_settings"
    assert env in info.value.message and repr(raw) in info.value.message
    with pytest.raises(ConfigError):
        get_settings(llm_model="x")  # overrides do not hide a bad environment value


def test_invalid_explicit_value_is_a_config_error(clean_env):
    with pytest.raises(ConfigError) as info:
        get_settings(max_iterations=0)
    assert "max_iterations" in info.value.message

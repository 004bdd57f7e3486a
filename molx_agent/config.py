"""Typed settings for molx-agent.

Precedence: explicit argument > environment variable > ``.env`` file > default.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

LLMProvider = Literal["auto", "openai", "rules"]
StructuredOutput = Literal["json_schema", "function_calling", "json_mode", "none"]
RetroMode = Literal["auto", "guided"]


class Settings(BaseSettings):
    """All user-tunable settings. Field names map to the documented environment variables."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
        populate_by_name=True,
    )

    openai_api_key: str | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    llm_provider: LLMProvider = Field(default="auto", validation_alias="MOLX_LLM_PROVIDER")
    llm_model: str = Field(default="gpt-4o-mini", validation_alias="MOLX_LLM_MODEL")
    llm_temperature: float = Field(default=0.0, validation_alias="MOLX_LLM_TEMPERATURE")
    llm_timeout: float = Field(default=60.0, gt=0, validation_alias="MOLX_LLM_TIMEOUT")
    llm_max_retries: int = Field(default=1, ge=0, le=10, validation_alias="MOLX_LLM_MAX_RETRIES")
    #: how structured answers are requested: an OpenAI JSON schema (default), tool calling, JSON mode, or "none"
    #: (a plain JSON prompt; the answer is validated either way)
    llm_structured_output: StructuredOutput = Field(default="json_schema",
                                                    validation_alias="MOLX_LLM_STRUCTURED_OUTPUT")
    #: retrosynthesis mode of the agent: "auto" (route search) or "guided" (the seed-000 pipeline, each decision
    #: taken by the LLM, or by the rule default without one)
    retro_mode: RetroMode = Field(default="auto", validation_alias="MOLX_RETRO_MODE")
    mcp_enabled: bool = Field(default=False, validation_alias="MCP_ENABLED")
    mcp_servers_config: Path = Field(
        default=Path("config/mcp_servers.json"), validation_alias="MCP_SERVERS_CONFIG"
    )
    output_dir: Path = Field(default=Path("./outputs"), validation_alias="MOLX_OUTPUT_DIR")
    molx_home: Path = Field(default=Path("~/.molx"), validation_alias="MOLX_HOME")
    max_iterations: int = Field(default=3, ge=1, le=20, validation_alias="MAX_ITERATIONS")
    # Input-size limits (molx_agent.limits reads them; defaults are written once there)
    max_smiles_chars: int = Field(default=10_000, ge=100, validation_alias="MOLX_MAX_SMILES_CHARS")
    max_heavy_atoms: int = Field(default=5_000, ge=10, validation_alias="MOLX_MAX_HEAVY_ATOMS")
    max_retro_heavy_atoms: int = Field(default=150, ge=10, validation_alias="MOLX_MAX_RETRO_HEAVY_ATOMS")
    max_query_chars: int = Field(default=20_000, ge=100, validation_alias="MOLX_MAX_QUERY_CHARS")
    max_json_depth: int = Field(default=64, ge=4, le=500, validation_alias="MOLX_MAX_JSON_DEPTH")
    max_json_mb: float = Field(default=20.0, gt=0, validation_alias="MOLX_MAX_JSON_MB")
    max_data_file_mb: float = Field(default=200.0, gt=0, validation_alias="MOLX_MAX_DATA_FILE_MB")
    lock_timeout: float = Field(default=60.0, ge=0, validation_alias="MOLX_LOCK_TIMEOUT")

    @property
    def resolved_provider(self) -> Literal["openai", "rules"]:
        """``auto`` means openai when a key or base URL is configured, else rules."""
        if self.llm_provider == "auto":
            return "openai" if (self.openai_api_key or self.openai_base_url) else "rules"
        return self.llm_provider

    @property
    def home_dir(self) -> Path:
        return Path(self.molx_home).expanduser()


def get_settings(**overrides: object) -> Settings:
    """Build settings; keyword overrides (by field name) win over env and ``.env``.

    An invalid value (``MAX_ITERATIONS=zero``) raises :class:`~molx_agent.errors.ConfigError`
    (``invalid_settings``) naming the variable and the offending value.
    """
    if overrides:
        clean = {k: v for k, v in overrides.items() if v is not None}
        return _build(**clean)
    return _cached_settings()


def _build(**kwargs: object) -> Settings:
    from pydantic import ValidationError as PydanticValidationError

    try:
        return Settings(**kwargs)  # type: ignore[arg-type]
    except PydanticValidationError as exc:
        from molx_agent.errors import ConfigError

        problems = []
        values = []
        for err in exc.errors():
            name = ".".join(str(p) for p in err.get("loc", ())) or "settings"
            problems.append(f"{name}: {err.get('msg', 'invalid value')} (got {err.get('input')!r})")
            values.append(err.get("input"))
        raise ConfigError("invalid_settings", "invalid setting " + "; ".join(problems),
                          value=values[0] if len(values) == 1 else values,
                          hint="fix the environment variable or .env entry (see .env.example)") from None


@lru_cache(maxsize=1)
def _cached_settings() -> Settings:
    return _build()


def reset_settings_cache() -> None:
    """Forget cached settings (tests change the environment)."""
    _cached_settings.cache_clear()


__all__ = ["Settings", "get_settings", "reset_settings_cache", "LLMProvider", "StructuredOutput", "RetroMode"]

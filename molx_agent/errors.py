"""Error hierarchy shared by every layer (seed 000, "RetroError 层级").

Every error carries a machine-readable ``code``, a human ``message``, a
``severity`` and optionally the offending ``value`` and a ``hint``.  The CLI
turns any :class:`RetroError` into a clear message and a non-zero exit.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class ErrorSeverity(str, Enum):  # noqa: UP042 - StrEnum would change str() of the members
    """How serious an error is."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class RetroError(Exception):
    """Base class of all molx-agent errors."""

    default_code = "retro_error"

    def __init__(
        self,
        code: str | None = None,
        message: str = "",
        severity: ErrorSeverity | str = ErrorSeverity.MEDIUM,
        *,
        value: Any = None,
        hint: str | None = None,
    ) -> None:
        self.code = code or self.default_code
        self.message = message or self.code
        self.severity = ErrorSeverity(severity)
        self.value = value
        self.hint = hint
        super().__init__(self.message)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "error_type": type(self).__name__,
            "code": self.code,
            "message": self.message,
            "severity": self.severity.value,
        }
        if self.value is not None:
            data["value"] = self.value if isinstance(self.value, (str, int, float, bool)) else repr(self.value)
        if self.hint:
            data["hint"] = self.hint
        return data

    def __str__(self) -> str:  # pragma: no cover - trivial
        text = self.message
        if self.value is not None and repr(self.value) not in text and str(self.value) not in text:
            text = f"{text} (value: {self.value!r})"
        if self.hint:
            text = f"{text}. Hint: {self.hint}"
        return text


class ValidationError(RetroError):
    """A reaction or an input failed validation (bad SMILES, unbalanced reaction, bad arguments)."""

    default_code = "validation_error"


class ExecutionError(RetroError):
    """A skill or tool failed while running (RDKit failure, file I/O, timeout)."""

    default_code = "execution_error"


class SkillError(RetroError):
    """A skill's logic failed (illegal parameter, unmet precondition)."""

    default_code = "skill_error"


class ChemistryError(RetroError):
    """RDKit or a chemistry operation failed (unparsable molecule, SMARTS error)."""

    default_code = "chemistry_error"


class ConfigError(RetroError):
    """A setting or configuration file is invalid."""

    default_code = "config_error"


class DataError(RetroError):
    """An input data file is missing, unreadable, empty or malformed."""

    default_code = "data_error"


#: Codes that mean the input itself is bad (retrying cannot help; the CLI exits 2): the SMILES rule and size
#: limits of ``molx_agent.limits``, unusable files and output folders of ``molx_agent.io_utils``.
INPUT_ERROR_CODES = frozenset({
    "invalid_smiles", "smiles_contains_whitespace", "smiles_too_long", "molecule_too_large",
    "empty_query", "invalid_query", "query_too_long", "invalid_json", "json_too_deep",
    "file_not_found", "is_a_directory", "not_a_file", "unreadable_file", "file_too_large", "empty_file",
    "encoding_error", "binary_file", "compressed_file", "ragged_rows", "unsupported_file", "unsupported_format",
    "output_dir_is_file", "output_dir_unwritable",
})

__all__ = [
    "INPUT_ERROR_CODES",
    "ErrorSeverity",
    "RetroError",
    "ValidationError",
    "ExecutionError",
    "SkillError",
    "ChemistryError",
    "ConfigError",
    "DataError",
]

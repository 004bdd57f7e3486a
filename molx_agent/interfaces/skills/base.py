"""Skill base class and the uniform :class:`SkillResult` (seed 000, "SkillResult").

A skill is a thin, named, argument-validated call into the chemistry core
(:mod:`molx_agent.chem`) or the retrosynthesis engine.  A skill reaches the engine (single-step model, stock,
step judgement) only through the :class:`~molx_agent.retro.engine.RetroEngine` it was built with
(``Skill(engine=...)``; the process-wide default engine when none is given).
Every skill returns ``SkillResult {success, data, error}``; it never raises and
never prints.  Arguments are validated by the skill's pydantic ``Args`` model,
whose JSON schema is also what the CLI (``skill --list``), the LangChain tools
and the MCP server publish.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from molx_agent.errors import ChemistryError, RetroError, SkillError

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

logger = logging.getLogger(__name__)


class SkillResult(BaseModel):
    """The uniform result of every skill: ``{"success", "data", "error"}``.

    ``error`` is ``""`` on success.  On failure ``error_code`` carries the
    machine-readable code of the error (e.g. ``invalid_smiles``,
    ``invalid_args``, ``engine_unavailable``) and ``data`` may hold partial
    details (``data["error_details"]`` is the error's ``to_dict()``).
    """

    model_config = ConfigDict(frozen=True)

    success: bool
    data: dict[str, Any] = Field(default_factory=dict)
    error: str = ""
    error_code: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"success": self.success, "data": self.data, "error": self.error}
        if self.error_code:
            out["error_code"] = self.error_code
        return out

    @classmethod
    def ok(cls, data: dict[str, Any]) -> SkillResult:
        return cls(success=True, data=data, error="")

    @classmethod
    def from_error(cls, exc: RetroError) -> SkillResult:
        return cls(success=False, data={"error_details": exc.to_dict()}, error=str(exc), error_code=exc.code)


class SkillArgs(BaseModel):
    """Base of every skill's argument model: unknown arguments are an error (catches typos)."""

    model_config = ConfigDict(extra="forbid")


class EngineUnavailable(SkillError):
    """The engine module a skill calls is not installed or failed to import."""

    default_code = "engine_unavailable"


def require_engine(module: str, *names: str) -> Any:
    """Import ``names`` from ``module`` lazily; raise :class:`EngineUnavailable` if missing.

    Skills import the engine inside ``_execute`` so the registry (and ``skill
    --list``) loads even when an optional engine module cannot be imported.
    """
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise EngineUnavailable(
            message=f"engine module {module} is not available ({exc})", value=module
        ) from exc
    missing = [n for n in names if not hasattr(mod, n)]
    if missing:
        raise EngineUnavailable(
            message=f"engine function(s) {', '.join(missing)} not available in {module}", value=module
        )
    if len(names) == 1:
        return getattr(mod, names[0])
    return tuple(getattr(mod, n) for n in names)


def format_validation_error(exc: PydanticValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ())) or "args"
        msg = err.get("msg", "invalid")
        if err.get("type") == "extra_forbidden":
            msg = "unexpected argument"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


class BaseSkill(ABC):
    """A named skill.  Subclasses set ``name``, ``description``, ``Args`` and implement ``_execute``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    Args: ClassVar[type[SkillArgs]] = SkillArgs

    def __init__(self, engine: RetroEngine | None = None) -> None:
        self._engine = engine

    @property
    def engine(self) -> RetroEngine:
        """The engine this skill uses (the injected one; else the process-wide default, built at first use)."""
        if self._engine is None:
            from molx_agent.interfaces._engine import engine_or_default

            self._engine = engine_or_default(None)
        return self._engine

    @classmethod
    def args_schema(cls) -> dict[str, Any]:
        """JSON schema of the arguments."""
        return cls.Args.model_json_schema()

    @classmethod
    def info(cls) -> dict[str, Any]:
        schema = cls.args_schema()
        return {
            "name": cls.name,
            "class": cls.__name__,
            "description": cls.description,
            "required": list(schema.get("required", [])),
            "parameters": schema.get("properties", {}),
        }

    @abstractmethod
    def _execute(self, args: Any) -> dict[str, Any]:
        """Do the work with validated ``args``; return the ``data`` dict or raise a RetroError."""

    def run(self, args: dict[str, Any] | None = None) -> SkillResult:
        """Validate ``args`` and execute; every failure becomes ``success=false`` with a clear error."""
        if args is not None and not isinstance(args, dict):
            exc = SkillError(
                "invalid_args", f"{self.name}: arguments must be a JSON object", value=type(args).__name__
            )
            return SkillResult.from_error(exc)
        try:
            parsed = self.Args.model_validate(args or {})
        except PydanticValidationError as exc:
            err = SkillError(
                "invalid_args",
                f"{self.name}: invalid arguments: {format_validation_error(exc)}",
                hint=f"required: {', '.join(self.args_schema().get('required', [])) or 'none'}",
            )
            return SkillResult.from_error(err)
        start = time.perf_counter()
        try:
            data = self._execute(parsed)
        except RetroError as exc:
            logger.info("skill %s failed: %s", self.name, exc)
            return SkillResult.from_error(exc)
        except Exception as exc:  # noqa: BLE001 - a skill never raises; the failure is reported
            logger.error("skill %s crashed: %s: %s", self.name, type(exc).__name__, exc)
            logger.debug("skill %s traceback", self.name, exc_info=True)
            err = SkillError("skill_crashed", f"{self.name} failed: {type(exc).__name__}: {exc}")
            return SkillResult.from_error(err)
        logger.debug("skill %s took %.3f s", self.name, time.perf_counter() - start)
        return SkillResult.ok(dict(data))


def canonical_or_raise(smiles: str) -> str:
    """Canonical SMILES, or ``ChemistryError("invalid_smiles")`` naming the offending value."""
    from rdkit import Chem, rdBase

    text = (smiles or "").strip() if isinstance(smiles, str) else ""
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(text) if text else None
    if mol is None:
        raise ChemistryError(
            "invalid_smiles",
            f"Failed to parse SMILES: {smiles!r}",
            value=smiles,
            hint="check brackets, valences and aromaticity; analyze_molecule validates a SMILES",
        )
    return Chem.MolToSmiles(mol)


def target_or_raise(text: str) -> str:
    """Canonical SMILES of a target given as a SMILES or a known name (the one resolver,
    :func:`molx_agent.retro.targets.resolve_target`); ``ChemistryError("invalid_smiles")`` otherwise."""
    from molx_agent.interfaces._engine import resolve_target

    smiles, _name = resolve_target(text)
    return canonical_or_raise(smiles)


__all__ = [
    "target_or_raise",
    "SkillResult",
    "SkillArgs",
    "BaseSkill",
    "EngineUnavailable",
    "require_engine",
    "canonical_or_raise",
    "format_validation_error",
]

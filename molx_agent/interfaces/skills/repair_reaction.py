"""``repair_reaction``: analyse a failed reaction's issues and suggest a repaired reaction."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from molx_agent.errors import ChemistryError
from molx_agent.interfaces.skills._common import seed_smiles_error, split_reaction
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, require_engine


class RepairReactionArgs(SkillArgs):
    reaction_smiles: str = Field(..., description="reaction SMILES to repair")
    issues: list[str | dict[str, Any]] | str | dict[str, Any] = Field(
        ..., description="issues to fix: strings or {code, message} objects (e.g. validate_reaction's issues)"
    )

    @field_validator("issues", mode="before")
    @classmethod
    def _one_issue(cls, value: Any) -> Any:
        return [value] if isinstance(value, (str, dict)) else value


class RepairReactionSkill(BaseSkill):
    name = "repair_reaction"
    description = (
        "Repair reaction by analysing issues and suggesting fixes; returns repaired_smiles, repair_actions "
        "and changes_made. At most MAX_REPAIR_RETRIES=3 attempts per disconnection."
    )
    Args = RepairReactionArgs

    def _execute(self, args: RepairReactionArgs) -> dict[str, Any]:
        split_reaction(args.reaction_smiles)
        repair = require_engine("molx_agent.chem.reaction_validation", "repair_reaction")
        try:
            return dict(repair(args.reaction_smiles, list(args.issues)))
        except ChemistryError as exc:
            raise seed_smiles_error(exc) from exc

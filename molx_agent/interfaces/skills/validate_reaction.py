"""``validate_reaction``: atom balance, chemical plausibility and forward feasibility (hard gate)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.errors import ChemistryError
from molx_agent.interfaces.skills._common import seed_smiles_error, split_reaction
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, require_engine


class ValidateReactionArgs(SkillArgs):
    reaction_smiles: str = Field(..., description="reaction SMILES 'precursors>>product'")
    reaction_class: str | None = Field(None, description="reaction type hint, e.g. 'amide coupling'")


class ValidateReactionSkill(BaseSkill):
    name = "validate_reaction"
    description = (
        "Validate reaction for atom balance and chemical plausibility; returns is_valid, verdict, issues "
        "({code, message}), byproducts, atom_balance and feasibility_assessment. A hard gate: "
        "is_valid=false must be repaired or another bond chosen."
    )
    Args = ValidateReactionArgs

    def _execute(self, args: ValidateReactionArgs) -> dict[str, Any]:
        split_reaction(args.reaction_smiles)
        validate = require_engine("molx_agent.chem", "validate_reaction")
        try:
            return dict(validate(args.reaction_smiles, reaction_class=args.reaction_class))
        except ChemistryError as exc:
            raise seed_smiles_error(exc) from exc

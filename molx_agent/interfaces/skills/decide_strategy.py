"""``decide_strategy``: linear / convergent / mixed strategy with scores and rationale."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine


class DecideStrategyArgs(SkillArgs):
    smiles: str = Field(..., description="SMILES of the target molecule")


class DecideStrategySkill(BaseSkill):
    name = "decide_strategy"
    description = (
        "Comprehensive strategy decision (linear/convergent) based on all analyses; returns "
        "recommended_strategy (linear | convergent | mixed), scores and rationale."
    )
    Args = DecideStrategyArgs

    def _execute(self, args: DecideStrategyArgs) -> dict[str, Any]:
        canonical_or_raise(args.smiles)
        decide = require_engine("molx_agent.chem.strategy", "decide_strategy")
        return dict(decide(args.smiles))

"""``plan_ring_strategy``: ring formation strategy, construction order, retro ring opening."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine


class PlanRingStrategyArgs(SkillArgs):
    smiles: str = Field(..., description="SMILES of the molecule")


class PlanRingStrategySkill(BaseSkill):
    name = "plan_ring_strategy"
    description = "Plan ring formation strategy including construction order and retro-ring-opening."
    Args = PlanRingStrategyArgs

    def _execute(self, args: PlanRingStrategyArgs) -> dict[str, Any]:
        canonical_or_raise(args.smiles)
        plan = require_engine("molx_agent.chem.strategy", "plan_ring_strategy")
        return dict(plan(args.smiles))

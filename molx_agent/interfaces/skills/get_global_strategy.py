"""``get_global_strategy``: global strategy context (protecting-group policy, method preferences)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, require_engine, target_or_raise


class GetGlobalStrategyArgs(SkillArgs):
    target_smiles: str = Field(..., description="SMILES of the target molecule (or a known compound name)")
    max_pg_operations: int = Field(2, ge=0, description="maximum number of protecting-group operations")
    max_steps: int = Field(10, ge=1, description="maximum number of synthesis steps")
    constraints: dict[str, Any] | None = Field(None, description="extra constraints")


class GetGlobalStrategySkill(BaseSkill):
    name = "get_global_strategy"
    description = "Get global strategy context for LLM prompts with PG policy and method preferences."
    Args = GetGlobalStrategyArgs

    def _execute(self, args: GetGlobalStrategyArgs) -> dict[str, Any]:
        target = target_or_raise(args.target_smiles)
        get_global = require_engine("molx_agent.chem.strategy", "get_global_strategy")
        return dict(
            get_global(
                target,
                max_pg_operations=args.max_pg_operations,
                max_steps=args.max_steps,
                constraints=args.constraints,
            )
        )

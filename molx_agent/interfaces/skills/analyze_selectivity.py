"""``analyze_selectivity``: competing functional groups, reactivity conflicts, protection strategy."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine


class AnalyzeSelectivityArgs(SkillArgs):
    smiles: str = Field(..., description="SMILES of the molecule")


class AnalyzeSelectivitySkill(BaseSkill):
    name = "analyze_selectivity"
    description = "Analyze chemoselectivity, competing FGs, and protection requirements."
    Args = AnalyzeSelectivityArgs

    def _execute(self, args: AnalyzeSelectivityArgs) -> dict[str, Any]:
        canonical_or_raise(args.smiles)
        analyze_selectivity = require_engine("molx_agent.chem.strategy", "analyze_selectivity")
        return dict(analyze_selectivity(args.smiles))

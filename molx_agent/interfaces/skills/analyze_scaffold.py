"""``analyze_scaffold``: ring systems, scaffold and strategic disconnection points."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine


class AnalyzeScaffoldArgs(SkillArgs):
    smiles: str = Field(..., description="SMILES of the molecule")


class AnalyzeScaffoldSkill(BaseSkill):
    name = "analyze_scaffold"
    description = "Analyze molecular scaffold for strategic disconnections and ring systems."
    Args = AnalyzeScaffoldArgs

    def _execute(self, args: AnalyzeScaffoldArgs) -> dict[str, Any]:
        canonical_or_raise(args.smiles)
        analyze_scaffold = require_engine("molx_agent.chem.strategy", "analyze_scaffold")
        return dict(analyze_scaffold(args.smiles))

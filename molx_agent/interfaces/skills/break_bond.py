"""``break_bond``: break one bond by atom indices and get the precursor SMILES."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine


class BreakBondArgs(SkillArgs):
    smiles: str = Field(..., description="SMILES of the target molecule")
    atom1_idx: int = Field(..., ge=0, description="index of the first atom of the bond (RDKit order)")
    atom2_idx: int = Field(..., ge=0, description="index of the second atom of the bond")


class BreakBondSkill(BaseSkill):
    name = "break_bond"
    description = (
        "Break a bond by atom indices to generate precursor SMILES automatically; returns fragments, "
        "reaction_smiles and retro_analysis_guide. Take the indices from analyze_molecule's "
        "atom_bond_map.strategic_bonds."
    )
    Args = BreakBondArgs

    def _execute(self, args: BreakBondArgs) -> dict[str, Any]:
        canonical_or_raise(args.smiles)
        break_bond = require_engine("molx_agent.chem", "break_bond")
        return dict(break_bond(args.smiles, args.atom1_idx, args.atom2_idx))

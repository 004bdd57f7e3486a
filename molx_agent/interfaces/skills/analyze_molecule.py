"""``analyze_molecule``: structure, functional groups, SA score and the atom_bond_map."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine

MOLECULE_INFO_KEYS = (
    "smiles",
    "canonical_smiles",
    "molecular_weight",
    "sa_score",
    "atom_bond_map",
    "functional_groups",
    "protecting_groups",
)


class AnalyzeMoleculeArgs(SkillArgs):
    smiles: str = Field(..., description="SMILES of the molecule to analyse")


class AnalyzeMoleculeSkill(BaseSkill):
    name = "analyze_molecule"
    description = (
        "Analyze target molecule structure, functional groups, properties: canonical SMILES, MW, SA score, "
        "CS score, functional and protecting groups, and the atom_bond_map whose strategic_bonds "
        "(sorted by strategic_priority, each with atom indices and a chemical_label) feed break_bond."
    )
    Args = AnalyzeMoleculeArgs

    def _execute(self, args: AnalyzeMoleculeArgs) -> dict[str, Any]:
        canonical_or_raise(args.smiles)
        analyze = require_engine("molx_agent.chem", "analyze_molecule")
        result = dict(analyze(args.smiles))
        info = {"smiles": args.smiles}
        for key in MOLECULE_INFO_KEYS[1:]:
            if key in result:
                info[key] = result.pop(key)
        return {"molecule_info": info, **result}

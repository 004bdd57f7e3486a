"""``map_atoms``: atom-to-atom mapping of a reaction.

Two mappers, tried in order:

1. **RXNMapper** when the optional extra ``mapping`` is installed
   (``uv sync --extra mapping``; it pulls in PyTorch, so it is never a default dependency).
2. **molx-agent's own template application**: when the reaction is one the engine's
   single-step model produces for that product (same canonical precursor set), the model's
   atom-mapped reaction (rdchiral template application) is returned.

Otherwise the skill fails with ``mapping_unavailable`` and says how to get RXNMapper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from molx_agent.errors import SkillError
from molx_agent.interfaces.skills._common import split_reaction
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine


class MapAtomsArgs(SkillArgs):
    reaction_smiles: str = Field(..., description="reaction SMILES 'reactants>>product' (one product)")
    mapper: str = Field(
        "auto", description="'auto' (RXNMapper if installed, else templates), 'rxnmapper' or 'template'"
    )


def _strip_maps(smiles: str) -> str:
    from rdkit import Chem, rdBase

    from molx_agent.chem.utils import map_free_smiles

    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return smiles
    return map_free_smiles(mol)


def _canonical_set(smiles_list: list[str]) -> tuple[str, ...]:
    return tuple(sorted(_strip_maps(canonical_or_raise(s)) for s in smiles_list))


def rxnmapper_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("rxnmapper") is not None


def map_with_rxnmapper(reaction_smiles: str) -> dict[str, Any]:
    from rxnmapper import RXNMapper  # optional extra "mapping"

    result = RXNMapper().get_attention_guided_atom_maps([reaction_smiles])[0]
    return {"mapped_rxn": result["mapped_rxn"], "confidence": float(result.get("confidence", 0.0))}


def map_with_templates(reactants: list[str], product: str, engine: RetroEngine) -> dict[str, Any] | None:
    """The mapped reaction of ``engine``'s single-step prediction whose precursors equal ``reactants``, if any."""
    wanted = _canonical_set(reactants)
    top_k = engine.config.expansion_top_k
    for pred in engine.predict(_strip_maps(canonical_or_raise(product)), top_k=top_k):
        if pred.mapped_reaction and _canonical_set(list(pred.reactants)) == wanted:
            return {
                "mapped_rxn": pred.mapped_reaction,
                "template_id": pred.template_id,
                "reaction_name": pred.reaction_name,
                "score": float(pred.score),
            }
    return None


class MapAtomsSkill(BaseSkill):
    name = "map_atoms"
    description = (
        "Add atom-to-atom mapping using RXNMapper (optional extra 'mapping', needs PyTorch); without it, "
        "maps reactions molx-agent's own templates produce for that product."
    )
    Args = MapAtomsArgs

    def _execute(self, args: MapAtomsArgs) -> dict[str, Any]:
        reactants, _reagents, products = split_reaction(args.reaction_smiles)
        for smi in reactants + products:
            canonical_or_raise(smi)
        mapper = args.mapper.lower()
        if mapper not in ("auto", "rxnmapper", "template"):
            raise SkillError(
                "invalid_args",
                f"unknown mapper {args.mapper!r}",
                value=args.mapper,
                hint="use 'auto', 'rxnmapper' or 'template'",
            )
        if mapper in ("auto", "rxnmapper") and rxnmapper_available():
            out = map_with_rxnmapper(args.reaction_smiles)
            return {
                "mapped_reaction_smiles": out["mapped_rxn"],
                "mapper": "rxnmapper",
                "confidence": out["confidence"],
                "reaction_smiles": args.reaction_smiles,
            }
        if mapper == "rxnmapper":
            raise SkillError(
                "mapping_unavailable",
                "RXNMapper is not installed",
                value="rxnmapper",
                hint="install the optional extra: uv sync --extra mapping (pulls in PyTorch)",
            )
        if len(products) != 1:
            raise SkillError(
                "mapping_unavailable",
                "template mapping needs exactly one product",
                value=args.reaction_smiles,
                hint="install RXNMapper (uv sync --extra mapping) for multi-product reactions",
            )
        found = map_with_templates(reactants, products[0], self.engine)
        if found is None:
            raise SkillError(
                "mapping_unavailable",
                "no molx-agent template produces this reaction, and RXNMapper is not installed",
                value=args.reaction_smiles,
                hint="install the optional extra 'mapping' (uv sync --extra mapping; needs PyTorch) to map any reaction",
            )
        return {
            "mapped_reaction_smiles": found["mapped_rxn"],
            "mapper": "template",
            "template_id": found["template_id"],
            "reaction_name": found["reaction_name"],
            "reaction_smiles": args.reaction_smiles,
        }

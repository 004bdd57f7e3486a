"""``propose_disconnection``: ranked disconnections from molx-agent's single-step model.

Each proposal comes from the engine's single-step model (``RetroEngine.predict``: USPTO-50K extracted or named
expert templates) and carries its score, template id and name, the atom-mapped reaction and the engine's step
judgement (``RetroEngine.judge_step``, called exactly as the route search calls it), so an agent can pick one and
pass its ``reaction_smiles`` on.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces._engine import brief_judgement, judge_prediction
from molx_agent.interfaces.pipeline.limits import DEFAULT_MAX_PROPOSALS
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, target_or_raise

STRATEGY_HINTS = ("linear", "convergent", "mixed")
#: two precursors whose smaller one has at least this share of the larger's heavy atoms count as "comparable"
CONVERGENT_BALANCE = 0.4


class ProposeDisconnectionArgs(SkillArgs):
    target_smiles: str = Field(..., description="SMILES of the target molecule (or a known compound name)")
    strategy_hint: str | None = Field(
        None,
        description=(
            "'convergent' (proposals splitting into two comparable fragments first), 'linear'/'mixed' (the "
            "model's order), or a reaction name/category substring to filter by (e.g. 'amide', 'Suzuki')"
        ),
    )
    max_proposals: int = Field(DEFAULT_MAX_PROPOSALS, ge=1, le=50, description="maximum number of proposals")


def _heavy_atoms(smiles: str) -> int:
    from rdkit import Chem, rdBase

    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    return mol.GetNumHeavyAtoms() if mol is not None else 0


def _balance(precursors: list[str]) -> float:
    """Size ratio of the two largest precursors (1 = equal halves, 0 = one precursor)."""
    sizes = sorted((_heavy_atoms(s) for s in precursors), reverse=True)
    if len(sizes) < 2 or sizes[0] == 0:
        return 0.0
    return sizes[1] / sizes[0]


class ProposeDisconnectionSkill(BaseSkill):
    name = "propose_disconnection"
    description = (
        "Propose retrosynthetic disconnection points automatically (single-step model over USPTO-50K "
        "templates and named reactions), each with precursors, reaction_smiles, score, reaction name and "
        "the engine's step judgement (forward validation, plausibility, verdict)."
    )
    Args = ProposeDisconnectionArgs

    def _execute(self, args: ProposeDisconnectionArgs) -> dict[str, Any]:
        target = target_or_raise(args.target_smiles)
        hint = (args.strategy_hint or "").strip()
        top_k = max(self.engine.config.expansion_top_k, args.max_proposals * 4)
        predictions = self.engine.predict(target, top_k=top_k)
        pairs: list[tuple[dict[str, Any], Any]] = []  # (proposal, the model's prediction)
        for pred in predictions:
            reactants = list(pred.reactants)
            proposal = {
                "precursors": reactants,
                "reaction_smiles": ".".join(reactants) + ">>" + target,
                "score": float(pred.score),
                "template_id": pred.template_id,
                "named_template_id": getattr(pred, "named_template_id", "") or "",
                "reaction_name": pred.reaction_name,
                "category": pred.category,
                "mapped_reaction": pred.mapped_reaction,
                "fragment_balance": round(_balance(reactants), 3),
            }
            pairs.append((proposal, pred))
        n_model = len(pairs)
        low = hint.lower()
        if low == "convergent":  # stable: the model's order within each group
            pairs.sort(key=lambda pair: pair[0]["fragment_balance"] < CONVERGENT_BALANCE)
        elif low and low not in STRATEGY_HINTS:
            pairs = [
                (p, pred)
                for p, pred in pairs
                if low in (p["reaction_name"] or "").lower() or low in (p["category"] or "").lower()
            ]
        proposals = []
        for proposal, pred in pairs[: args.max_proposals]:
            # the engine's step judgement, called exactly as the route search calls it
            proposal["forward_validation"] = brief_judgement(judge_prediction(self.engine, pred, target))
            proposals.append(proposal)
        for rank, prop in enumerate(proposals, 1):
            prop["rank"] = rank
        return {
            "target_smiles": target,
            "strategy_hint": args.strategy_hint,
            "proposals": proposals,
            "n_proposals": len(proposals),
            "n_model_predictions": n_model,
            "source": "single_step_model",
        }

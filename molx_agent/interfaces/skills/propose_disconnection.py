"""``propose_disconnection``: ranked disconnections from molx-agent's single-step model.

Each proposal comes from a reaction template (USPTO-50K extracted or a named expert template)
and carries its score, template id and name, the atom-mapped reaction and the chemistry core's
forward-validation verdict, so an agent can pick one and pass its ``reaction_smiles`` on.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.interfaces.pipeline.limits import DEFAULT_MAX_PROPOSALS
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, canonical_or_raise, require_engine

STRATEGY_HINTS = ("linear", "convergent", "mixed")
#: two precursors whose smaller one has at least this share of the larger's heavy atoms count as "comparable"
CONVERGENT_BALANCE = 0.4


class ProposeDisconnectionArgs(SkillArgs):
    target_smiles: str = Field(..., description="SMILES of the target molecule")
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
        "forward-validation verdict."
    )
    Args = ProposeDisconnectionArgs

    def _execute(self, args: ProposeDisconnectionArgs) -> dict[str, Any]:
        target = canonical_or_raise(args.target_smiles)
        load_model = require_engine("molx_agent.retro.single_step", "load_single_step_model")
        model = load_model()
        hint = (args.strategy_hint or "").strip()
        top_k = max(50, args.max_proposals * 4)
        predictions = model.predict(target, top_k=top_k)
        proposals: list[dict[str, Any]] = []
        for pred in predictions:
            reactants = list(pred.reactants)
            proposals.append(
                {
                    "precursors": reactants,
                    "reaction_smiles": ".".join(reactants) + ">>" + target,
                    "score": float(pred.score),
                    "template_id": pred.template_id,
                    "reaction_name": pred.reaction_name,
                    "category": pred.category,
                    "mapped_reaction": pred.mapped_reaction,
                    "fragment_balance": round(_balance(reactants), 3),
                }
            )
        n_model = len(proposals)
        low = hint.lower()
        if low == "convergent":  # stable: the model's order within each group
            proposals.sort(key=lambda p: p["fragment_balance"] < CONVERGENT_BALANCE)
        elif low and low not in STRATEGY_HINTS:
            proposals = [
                p
                for p in proposals
                if low in (p["reaction_name"] or "").lower() or low in (p["category"] or "").lower()
            ]
        proposals = proposals[: args.max_proposals]
        self._annotate(proposals, target)
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

    @staticmethod
    def _annotate(proposals: list[dict[str, Any]], target: str) -> None:
        """Add the chemistry core's forward-validation verdict to each proposal (when available)."""
        try:
            validate_forward = require_engine("molx_agent.chem", "validate_forward")
        except Exception:  # noqa: BLE001 - annotation is optional
            return
        for prop in proposals:
            try:
                fv = validate_forward(prop["precursors"], target, reaction_type=prop["reaction_name"] or None)
            except Exception as exc:  # noqa: BLE001 - recorded on the proposal, never dropped
                prop["forward_validation"] = {"error": f"{type(exc).__name__}: {exc}"}
                continue
            prop["forward_validation"] = {
                "pass": fv.get("pass", fv.get("ok")),
                "feasibility_score": fv.get("feasibility_score"),
                "hard_fail_reasons": fv.get("hard_fail_reasons"),
            }

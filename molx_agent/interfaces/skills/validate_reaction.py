"""``validate_reaction``: atom balance, chemical plausibility and forward feasibility (hard gate).

The seed's report (issues, byproducts, atom balance, feasibility) comes from :func:`molx_agent.chem.validate_reaction`;
the hard gate itself is the engine's step judgement (``RetroEngine.judge_step``, ``step_judgement`` in the answer),
called as the route search calls it when the step's ``category``, ``template_id``, ``mapped_reaction`` and model
``score`` are passed, so the search, the pipeline (whose VALIDATE task runs this skill) and the session reach the
same verdict on the same step.  Where the two disagree (a named template or the template's atom map vouches for a
step the heuristic alignment doubts, or the other way round) the engine's gates decide ``is_valid`` and the
answer says so.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.errors import ChemistryError
from molx_agent.interfaces._engine import brief_judgement, judge_step, named_template_id
from molx_agent.interfaces.skills._common import seed_smiles_error, split_reaction
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, require_engine


class ValidateReactionArgs(SkillArgs):
    reaction_smiles: str = Field(..., description="reaction SMILES 'precursors>>product'")
    reaction_class: str | None = Field(None, description="reaction type hint, e.g. 'amide coupling'")
    category: str | None = Field(
        None, description="the step's category when a template or the model proposed it (as the route search "
        "judges the step)")
    template_id: str | None = Field(
        None, description="id of the template that proposed the step (a named template is re-applied)")
    mapped_reaction: str | None = Field(None, description="the step atom-mapped as its template wrote it")
    score: float | None = Field(
        None, description="the single-step model's probability for the step (checked against the plausibility floor)")


def _reconcile(res: dict[str, Any], judgement: dict[str, Any]) -> dict[str, Any]:
    """Make ``is_valid`` (and the error issues behind it) the engine's hard gates."""
    from molx_agent.chem.forward_validate import HARD_GATES

    engine_gates = {str(g) for g in judgement.get("hard_fail_reasons") or []}
    issues: list[dict[str, Any]] = []
    waived: list[str] = []
    for item in res.get("issues") or []:
        code = item.get("code")
        if item.get("severity") == "error" and code in HARD_GATES and code not in engine_gates:
            waived.append(str(code))
            continue
        issues.append(item)
    present = {i.get("code") for i in issues}
    for gate in sorted(engine_gates - present):
        issues.append({"code": gate, "severity": "error",
                       "message": f"the engine's step judgement fails this step: {gate}"})
    for item in judgement.get("issues") or []:
        if item.get("code") == "implausible_step":
            issues.append({"code": "implausible_step", "severity": "warning", "message": item.get("message", "")})
    if waived:
        why = judgement.get("waived_because") or "the engine's step judgement (the proposing template's atom map)"
        issues.append({"code": "gates_waived", "severity": "info",
                       "message": f"{', '.join(waived)} not applied: {why}"})
    is_valid = not any(i.get("severity") == "error" for i in issues)
    if is_valid != bool(res.get("is_valid")):
        errors = [str(i.get("code")) for i in issues if i.get("severity") == "error"]
        res["verdict"] = (f"invalid: {', '.join(errors)} (the engine's step judgement)" if not is_valid
                          else f"valid by the engine's step judgement ({res.get('verdict')})")
    res["issues"] = issues
    res["is_valid"] = is_valid
    res["status"] = "invalid" if not is_valid else (
        "valid_with_warnings" if any(i.get("severity") == "warning" for i in issues) else "valid")
    return res


class ValidateReactionSkill(BaseSkill):
    name = "validate_reaction"
    description = (
        "Validate reaction for atom balance and chemical plausibility; returns is_valid, verdict, issues "
        "({code, message}), byproducts, atom_balance, feasibility_assessment and the engine's step_judgement. "
        "A hard gate: is_valid=false must be repaired or another bond chosen."
    )
    Args = ValidateReactionArgs

    def _execute(self, args: ValidateReactionArgs) -> dict[str, Any]:
        split_reaction(args.reaction_smiles)
        validate = require_engine("molx_agent.chem", "validate_reaction")
        named = named_template_id(args.template_id)
        try:
            res = dict(validate(args.reaction_smiles, reaction_class=args.reaction_class, template_id=named))
        except ChemistryError as exc:
            raise seed_smiles_error(exc) from exc
        precursors = list(res.get("reactants") or [])
        if any(i.get("code") == "reagent_atoms_incorporated" for i in res.get("issues") or []):
            precursors += list(res.get("reagents") or [])
        judgement = judge_step(self.engine, precursors, res["main_product"], category=args.category,
                               reaction_type=args.reaction_class, template_id=named,
                               mapped_reaction=args.mapped_reaction, score=args.score)
        res["step_judgement"] = brief_judgement(judgement)
        return _reconcile(res, judgement)

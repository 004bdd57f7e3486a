"""The 5 decision points of the task pipeline (seed 000, "5 类决策点详解").

Each point knows its actions, builds the ``context`` of its :class:`DecisionContext`,
resolves ``use_default`` exactly as the seed specifies, validates an instruction's params
and applies the chosen action through the orchestrator (``rt``), which owns the tasks and
the :class:`~molx_agent.retro.route.RetroGraph`.  Building blocks are in :mod:`.decision_base`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from molx_agent.interfaces.pipeline.decision_base import (
    DT,
    RECURSION_ACTIONS,
    STRATEGIES,
    Action,
    DecisionPoint,
    bad_params,
    recursion_default,
)
from molx_agent.interfaces.pipeline.limits import SA_THRESHOLDS
from molx_agent.interfaces.pipeline.models import DecisionType, PipelineTask, TaskType

if TYPE_CHECKING:  # pragma: no cover
    from molx_agent.interfaces.pipeline.orchestrator import Orchestrator


# ---------------------------------------------------------------------------
# 1. strategy_selection (after STRATEGY)
# ---------------------------------------------------------------------------
class StrategySelection(DecisionPoint):
    decision_type = DT.STRATEGY_SELECTION
    task_type = TaskType.STRATEGY
    actions = (
        Action("choose_strategy", "choose the synthesis strategy", ("chosen_strategy",)),
        Action("use_default", "use the recommended_strategy of decide_strategy (default 'linear')"),
    )

    def build_context(self, rt: Orchestrator, task: PipelineTask) -> dict[str, Any]:
        res = task.result or {}
        strat = res.get("strategy") or {}
        return {
            "target_smiles": rt.route.target_smiles,
            "recommended_strategy": strat.get("recommended_strategy"),
            "scores": strat.get("scores"),
            "convergent_feasibility": strat.get("convergent_feasibility"),
            "linear_feasibility": strat.get("linear_feasibility"),
            "rationale": strat.get("rationale"),
            "scaffold_summary": res.get("scaffold_summary"),
            "selectivity_summary": res.get("selectivity_summary"),
            "target_availability": res.get("target_availability"),
            "errors": res.get("errors") or None,
            "allowed_strategies": list(STRATEGIES),
        }

    def resolve_default(self, rt, task):
        rec = ((task.result or {}).get("strategy") or {}).get("recommended_strategy")
        chosen = rec if rec in STRATEGIES else "linear"
        return (
            "choose_strategy",
            {"chosen_strategy": chosen},
            f"recommended_strategy={rec or 'n/a'} -> {chosen}",
        )

    def apply(self, rt, task, action, params, instruction):
        chosen = params.get("chosen_strategy")
        if chosen not in STRATEGIES:
            raise bad_params(
                self.decision_type,
                action,
                f"chosen_strategy must be one of {', '.join(STRATEGIES)}",
                value=chosen,
            )
        rt.route.strategy = chosen
        plan = dict(rt.route.audit.get("strategic_plan") or {})
        plan.update({"strategy": chosen, "reasoning": instruction.reasoning or ""})
        rt.route.audit["strategic_plan"] = plan
        return f"strategy={chosen}"


# ---------------------------------------------------------------------------
# 2. disconnection_decision (after ANALYZE)
# ---------------------------------------------------------------------------
class DisconnectionDecision(DecisionPoint):
    decision_type = DT.DISCONNECTION_DECISION
    task_type = TaskType.ANALYZE
    actions = (
        Action(
            "select_bond",
            "break the bond between two atoms (indices from atom_bond_map)",
            ("atom1_idx", "atom2_idx"),
        ),
        Action(
            "custom_reaction",
            "give your own disconnection as a reaction SMILES 'precursors>>molecule' "
            "(e.g. one of model_proposals)",
            ("reaction_smiles", "precursors"),
        ),
        Action(
            "use_default",
            "rule default: the untried strategic bond with the highest strategic_priority; "
            "without one, the top untried propose_disconnection proposal",
        ),
    )

    def build_context(self, rt, task):
        res = task.result or {}
        analysis = res.get("analysis") or {}
        info = analysis.get("molecule_info") or {}
        abm = info.get("atom_bond_map") or {}
        tried = rt.tried_bonds(task.node_id)
        strategic = []
        for bond in sorted(
            abm.get("strategic_bonds") or [], key=lambda b: -float(b.get("strategic_priority") or 0)
        ):
            entry = dict(bond)
            entry["already_tried"] = _bond_key(bond.get("atoms")) in tried
            strategic.append(entry)
        summary = {
            k: analysis.get(k, info.get(k))
            for k in ("formula", "molecular_weight", "sa_score", "cs_score", "classification")
        }
        return {
            "target_smiles": rt.route.target_smiles,
            "molecule_smiles": task.smiles,
            "node_id": task.node_id,
            "depth": task.depth,
            "strategy": rt.route.strategy,
            "atom_bond_map": {"strategic_bonds": strategic, "n_bonds": len(abm.get("bonds") or [])},
            "retro_guidance": (_guidance(strategic) if tried else None)
            or analysis.get("retro_guidance")
            or abm.get("retro_guidance")
            or _guidance(strategic),
            "functional_groups": info.get("functional_groups"),
            "protecting_groups": info.get("protecting_groups"),
            "summary": summary,
            "model_proposals": res.get("model_proposals"),
            "failed_attempts": rt.failed_attempts_for(task.node_id),
            "last_error": res.get("last_error"),
        }

    def resolve_default(self, rt, task):
        analysis = ((task.result or {}).get("analysis") or {}).get("molecule_info") or {}
        bonds = (analysis.get("atom_bond_map") or {}).get("strategic_bonds") or []
        tried = rt.tried_bonds(task.node_id)
        for bond in sorted(bonds, key=lambda b: -float(b.get("strategic_priority") or 0)):
            atoms = bond.get("atoms") or []
            if len(atoms) == 2 and _bond_key(atoms) not in tried:
                return (
                    "select_bond",
                    {"atom1_idx": int(atoms[0]), "atom2_idx": int(atoms[1])},
                    f"highest-priority untried strategic bond {atoms} ({bond.get('chemical_label', '')})",
                )
        return "propose", {}, "no untried strategic bond: ProposeDisconnectionSkill chooses"

    def apply(self, rt, task, action, params, instruction):
        disconnect = rt.route.tasks[task.inputs["disconnect_task"]]
        disconnect.inputs["choice_reasoning"] = instruction.reasoning or ""
        if action == "select_bond":
            a1, a2 = params.get("atom1_idx"), params.get("atom2_idx")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (a1, a2)):
                raise bad_params(
                    self.decision_type, action, "atom1_idx and atom2_idx must be integers", value=params
                )
            rt.check_bond(task.smiles, a1, a2)
            disconnect.inputs.update(mode="bond", atom1_idx=a1, atom2_idx=a2)
            return f"bond {a1}-{a2}"
        if action == "custom_reaction":
            rxn = params.get("reaction_smiles")
            if not isinstance(rxn, str) or ">" not in rxn:
                raise bad_params(
                    self.decision_type,
                    action,
                    "reaction_smiles ('precursors>>molecule') is required",
                    value=rxn,
                )
            precursors = rt.check_custom_reaction(
                task, rxn, params.get("precursors"), self.decision_type, action
            )
            disconnect.inputs.update(mode="custom", reaction_smiles=rxn, precursors=precursors)
            return f"custom reaction {rxn}"
        if action == "propose":
            disconnect.inputs.update(mode="propose")
            return "propose_disconnection"
        raise bad_params(self.decision_type, action, "unknown action")  # pragma: no cover


def _bond_key(atoms: Any) -> tuple[int, int] | None:
    try:
        a, b = int(atoms[0]), int(atoms[1])
    except (TypeError, ValueError, IndexError):
        return None
    return (min(a, b), max(a, b))


def _guidance(strategic: list[dict[str, Any]]) -> str:
    top = [b for b in strategic if not b.get("already_tried")][:3]
    if not top:
        return "No untried strategic bond: use custom_reaction (e.g. a model proposal) or use_default."
    parts = [
        f"{b.get('chemical_label') or b.get('bond_type')} between atoms {b.get('atoms')} "
        f"(priority {b.get('strategic_priority')})"
        for b in top
    ]
    return "Prefer breaking: " + "; ".join(parts)


# ---------------------------------------------------------------------------
# 3. validation_judgment (after VALIDATE)
# ---------------------------------------------------------------------------
class ValidationJudgment(DecisionPoint):
    decision_type = DT.VALIDATION_JUDGMENT
    task_type = TaskType.VALIDATE
    actions = (
        Action("accept", "accept the validated step and expand its precursors"),
        Action("repair", "create a repair sub-task (repair_reaction)"),
        Action(
            "retry_other_bond", "abandon this disconnection and choose another bond for the same molecule"
        ),
        Action("re_analyze_disconnection", "abandon this disconnection and re-run the molecule analysis"),
        Action("accept_with_note", "accept with a note; pass reaction_conditions in the instruction"),
        Action(
            "use_default",
            "is_valid=true -> accept; is_valid=false -> repair "
            "(-> retry_other_bond once MAX_REPAIR_RETRIES is used up)",
        ),
    )

    def available_actions(self, rt, task):
        res = task.result or {}
        valid = bool(res.get("is_valid")) and not res.get("cycle")
        left = rt.repair_retries_left(task.inputs.get("attempt_key", task.id))
        out = []
        for a in self.actions:
            if a.action_id in ("accept", "accept_with_note") and not valid:
                continue  # hard gate: an invalid step must be repaired or abandoned
            if a.action_id == "repair" and left <= 0:
                continue
            out.append(a.describe())
        return out

    def build_context(self, rt, task):
        res = task.result or {}
        key = task.inputs.get("attempt_key", task.id)
        return {
            "target_smiles": rt.route.target_smiles,
            "product_smiles": rt.node_smiles(task.node_id),
            "reaction_smiles": task.inputs.get("reaction_smiles"),
            "precursors": task.inputs.get("precursors"),
            "reaction_type": task.inputs.get("reaction_type"),
            "source": task.inputs.get("source"),
            "conditions": task.inputs.get("conditions"),
            "warnings": task.inputs.get("warnings") or [],
            "disconnection_confidence": task.inputs.get("score"),
            "low_confidence": bool(task.inputs.get("low_confidence")),
            "is_valid": bool(res.get("is_valid")),
            "verdict": res.get("verdict"),
            "issues": res.get("issues") or [],
            "atom_balance": res.get("atom_balance"),
            "byproducts": res.get("byproducts"),
            "feasibility_assessment": res.get("feasibility_assessment"),
            "cycle": res.get("cycle"),
            "repair_attempts_used": rt.repair_count(key),
            "repair_retries_left": rt.repair_retries_left(key),
            "hard_gate": "accept is only available when is_valid=true",
        }

    def resolve_default(self, rt, task):
        res = task.result or {}
        if res.get("is_valid") and not res.get("cycle"):
            return "accept", {}, "is_valid=true -> accept"
        if rt.repair_retries_left(task.inputs.get("attempt_key", task.id)) > 0:
            return "repair", {}, "is_valid=false -> repair"
        return "retry_other_bond", {}, "is_valid=false and MAX_REPAIR_RETRIES used up -> retry_other_bond"

    def apply(self, rt, task, action, params, instruction):
        if action in ("accept", "accept_with_note"):
            conditions = instruction.reaction_conditions if action == "accept_with_note" else None
            step_id = rt.commit_step(task, instruction, conditions=conditions)
            return f"step {step_id} committed"
        if action == "repair":
            rt.require_repair_left(task.inputs.get("attempt_key", task.id))
            rt.new_repair_task(task, task.inputs["reaction_smiles"], (task.result or {}).get("issues") or [])
            return "repair task created"
        reason = (
            instruction.reasoning
            or f"{action} after validation (verdict: {(task.result or {}).get('verdict')})"
        )
        rt.abandon_disconnection(task, reason, reanalyze=(action == "re_analyze_disconnection"))
        return "disconnection abandoned"


# ---------------------------------------------------------------------------
# 4. repair_judgment (after REPAIR)
# ---------------------------------------------------------------------------
class RepairJudgment(DecisionPoint):
    decision_type = DT.REPAIR_JUDGMENT
    task_type = TaskType.REPAIR
    actions = (
        Action("accept_repair", "accept the automatic repair and validate the repaired reaction"),
        Action(
            "use_custom_repair",
            "use your own repaired reaction",
            ("repaired_reaction_smiles", "repaired_precursors"),
        ),
        Action("reject_and_retry", "reject this repair and run repair_reaction again"),
        Action("abandon_bond", "give up this disconnection and choose another bond"),
        Action("use_default", "repaired_smiles present -> accept_repair; otherwise -> abandon_bond"),
    )

    def available_actions(self, rt, task):
        res = task.result or {}
        left = rt.repair_retries_left(task.inputs.get("attempt_key", task.id))
        out = []
        for a in self.actions:
            if a.action_id == "accept_repair" and not res.get("repaired_smiles"):
                continue
            if a.action_id == "reject_and_retry" and left <= 0:
                continue
            out.append(a.describe())
        return out

    def build_context(self, rt, task):
        res = task.result or {}
        key = task.inputs.get("attempt_key", task.id)
        return {
            "target_smiles": rt.route.target_smiles,
            "product_smiles": rt.node_smiles(task.node_id),
            "original_reaction_smiles": task.inputs.get("reaction_smiles"),
            "original_issues": task.inputs.get("issues") or [],
            "repaired_smiles": res.get("repaired_smiles"),
            "repaired_precursors": res.get("repaired_precursors"),
            "repair_strategy": res.get("repair_strategy") or res.get("repair_actions"),
            "repair_actions": res.get("repair_actions"),
            "changes_made": res.get("changes_made"),
            "repaired_is_valid": res.get("is_valid"),
            "error": res.get("error"),
            "repair_attempts_used": rt.repair_count(key),
            "repair_retries_left": rt.repair_retries_left(key),
        }

    def resolve_default(self, rt, task):
        if (task.result or {}).get("repaired_smiles"):
            return "accept_repair", {}, "repaired_smiles present -> accept_repair"
        return "abandon_bond", {}, "no repaired_smiles -> abandon_bond"

    def apply(self, rt, task, action, params, instruction):
        res = task.result or {}
        if action == "accept_repair":
            rxn = res.get("repaired_smiles")
            if not rxn:
                raise bad_params(
                    self.decision_type,
                    action,
                    "there is no repaired_smiles to accept",
                    hint="use abandon_bond",
                )
            precursors = res.get("repaired_precursors") or rt.reaction_precursors(rxn)
            rt.new_validate_task(task, rxn, precursors, repaired=True)
            return "repaired reaction sent to validation"
        if action == "use_custom_repair":
            rxn = params.get("repaired_reaction_smiles")
            if not isinstance(rxn, str) or ">" not in rxn:
                raise bad_params(
                    self.decision_type, action, "repaired_reaction_smiles is required", value=rxn
                )
            precursors = rt.check_custom_reaction(
                task, rxn, params.get("repaired_precursors"), self.decision_type, action
            )
            rt.new_validate_task(task, rxn, precursors, repaired=True)
            return "custom repair sent to validation"
        if action == "reject_and_retry":
            rt.require_repair_left(task.inputs.get("attempt_key", task.id))
            issues = list(task.inputs.get("issues") or [])
            if res.get("repaired_smiles"):
                issues.append(
                    {"code": "rejected_repair", "message": f"rejected repair: {res['repaired_smiles']}"}
                )
            rt.new_repair_task(task, task.inputs["reaction_smiles"], issues)
            return "repair retried"
        reason = instruction.reasoning or "repair abandoned"
        rt.abandon_disconnection(task, reason, reanalyze=False)
        return "disconnection abandoned"


# ---------------------------------------------------------------------------
# 5. recursion_decision (after a step is accepted)
# ---------------------------------------------------------------------------
class RecursionDecision(DecisionPoint):
    decision_type = DT.RECURSION_DECISION
    task_type = TaskType.RECURSION
    actions = (
        Action(
            "recursion_decision",
            "one action per precursor: mark_terminal | decompose | mark_optional",
            ("precursor_decisions",),
        ),
        Action(
            "use_default",
            "SA/MW thresholds: MW < 120 or SA < 2.2 -> mark_terminal; 2.2 <= SA < 3.5 -> "
            "mark_optional; SA >= 3.5 -> decompose; a molecule in stock -> mark_terminal",
        ),
    )

    def build_context(self, rt, task):
        return {
            "target_smiles": rt.route.target_smiles,
            "product_smiles": rt.node_smiles(task.node_id),
            "step_id": task.inputs.get("step_id"),
            "reaction_smiles": task.inputs.get("reaction_smiles"),
            "precursors": (task.result or {}).get("precursors") or [],
            "current_depth": task.depth,
            "max_depth": rt.limits.MAX_DEPTH,
            "sa_thresholds": {
                "purchasable": SA_THRESHOLDS.PURCHASABLE,
                "easily_synthesizable": SA_THRESHOLDS.EASILY_SYNTHESIZABLE,
            },
            "mw_terminal": rt.limits.MW_TERMINAL,
            "tasks_left": rt.limits.MAX_TOTAL_TASKS - len(rt.route.tasks),
        }

    def resolve_default(self, rt, task):
        decisions = [
            {"smiles": p["smiles"], "action": p["suggested_action"], "reason": p.get("reason", "")}
            for p in (task.result or {}).get("precursors") or []
        ]
        return "recursion_decision", {"precursor_decisions": decisions}, "SA/MW thresholds"

    def apply(self, rt, task, action, params, instruction):
        raw = params.get("precursor_decisions")
        if not isinstance(raw, list):
            raise bad_params(
                self.decision_type,
                action,
                "precursor_decisions must be a list",
                value=raw,
                hint='[{"smiles": "...", "action": "mark_terminal|decompose|mark_optional", "reason": "..."}]',
            )
        precursors = (task.result or {}).get("precursors") or []
        by_smiles: dict[str, list[dict[str, Any]]] = {}
        for p in precursors:
            by_smiles.setdefault(p["canonical_smiles"], []).append(p)
        chosen: dict[str, tuple[str, str]] = {}
        for item in raw:
            if not isinstance(item, dict) or "smiles" not in item or "action" not in item:
                raise bad_params(
                    self.decision_type, action, "each decision needs 'smiles' and 'action'", value=item
                )
            if item["action"] not in RECURSION_ACTIONS:
                raise bad_params(
                    self.decision_type,
                    action,
                    f"action must be one of {', '.join(RECURSION_ACTIONS)}",
                    value=item["action"],
                )
            can = rt.canonical(item["smiles"], self.decision_type, action)
            if can not in by_smiles:
                raise bad_params(
                    self.decision_type,
                    action,
                    "not a precursor of this step",
                    value=item["smiles"],
                    hint="precursors: " + ", ".join(p["smiles"] for p in precursors),
                )
            for p in by_smiles[can]:
                chosen[p["node_id"]] = (item["action"], str(item.get("reason") or ""))
        outcome = rt.expand_precursors(task, precursors, chosen)
        return outcome


DECISION_POINTS: dict[DecisionType, DecisionPoint] = {
    dp.decision_type: dp
    for dp in (
        StrategySelection(),
        DisconnectionDecision(),
        ValidationJudgment(),
        RepairJudgment(),
        RecursionDecision(),
    )
}
DECISION_FOR_TASK: dict[TaskType, DecisionType] = {dp.task_type: dt for dt, dp in DECISION_POINTS.items()}

__all__ = [
    "Action",
    "DecisionPoint",
    "DECISION_POINTS",
    "DECISION_FOR_TASK",
    "STRATEGIES",
    "RECURSION_ACTIONS",
    "recursion_default",
]

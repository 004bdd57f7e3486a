"""Building blocks of the decision points: :class:`Action`, :class:`DecisionPoint`, the recursion rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from molx_agent.errors import ValidationError
from molx_agent.interfaces.pipeline.limits import SA_THRESHOLDS
from molx_agent.interfaces.pipeline.models import DecisionInstruction, DecisionType, PipelineTask, TaskType

if TYPE_CHECKING:  # pragma: no cover
    from molx_agent.interfaces.pipeline.orchestrator import Orchestrator

DT = DecisionType
STRATEGIES = ("linear", "convergent", "mixed")
RECURSION_ACTIONS = ("mark_terminal", "decompose", "mark_optional")


@dataclass(frozen=True)
class Action:
    action_id: str
    description: str
    params: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action_id": self.action_id, "description": self.description}
        if self.params:
            out["params"] = list(self.params)
        return out


def bad_params(
    decision: DecisionType, action: str, message: str, value: Any = None, hint: str | None = None
) -> ValidationError:
    return ValidationError(
        "invalid_decision_params", f"{decision.value}/{action}: {message}", value=value, hint=hint
    )


def recursion_default(
    sa_score: float | None, molecular_weight: float | None, in_stock: bool, mw_terminal: float
) -> tuple[str, str]:
    """``(action, reason)`` of recursion ``use_default`` for one precursor.

    Seed: MW < 120 or SA < 2.2 -> mark_terminal; 2.2 <= SA < 3.5 -> mark_optional;
    SA >= 3.5 -> decompose.  Beyond the seed: a molecule found in a real stock is terminal.
    """
    if in_stock:
        return "mark_terminal", "in stock"
    if molecular_weight is not None and molecular_weight < mw_terminal:
        return "mark_terminal", f"MW={molecular_weight:.1f} < {mw_terminal:g}"
    if sa_score is None:
        return "decompose", "no SA score"
    if sa_score < SA_THRESHOLDS.PURCHASABLE:
        return "mark_terminal", f"SA={sa_score:.2f} < {SA_THRESHOLDS.PURCHASABLE} (purchasable)"
    if sa_score < SA_THRESHOLDS.EASILY_SYNTHESIZABLE:
        return (
            "mark_optional",
            f"{SA_THRESHOLDS.PURCHASABLE} <= SA={sa_score:.2f} < {SA_THRESHOLDS.EASILY_SYNTHESIZABLE} (easily synthesizable)",
        )
    return "decompose", f"SA={sa_score:.2f} >= {SA_THRESHOLDS.EASILY_SYNTHESIZABLE} (complex)"


class DecisionPoint:
    decision_type: DecisionType
    task_type: TaskType
    actions: tuple[Action, ...] = ()

    def available_actions(self, rt: Orchestrator, task: PipelineTask) -> list[dict[str, Any]]:
        return [a.describe() for a in self.actions]

    def build_context(self, rt: Orchestrator, task: PipelineTask) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def unavailable_reason(self, rt: Orchestrator, task: PipelineTask, action: str) -> Exception | None:
        """A specific error for an action of this point that is currently withheld (else None)."""
        if action in ("repair", "reject_and_retry"):
            key = task.inputs.get("attempt_key", task.id)
            if rt.repair_retries_left(key) <= 0:
                try:
                    rt.require_repair_left(key)
                except Exception as exc:  # noqa: BLE001 - returned, not raised
                    return exc
        if action in ("accept", "accept_with_note") and self.decision_type == DT.VALIDATION_JUDGMENT:
            return ValidationError(
                "validation_failed",
                "validate_reaction is a hard gate: a step with is_valid=false (or a cycle) cannot be accepted",
                value=(task.result or {}).get("verdict"),
                hint="repair it, or abandon it with retry_other_bond / re_analyze_disconnection",
            )
        if action == "accept_repair":
            return ValidationError(
                "no_repair",
                "repair_reaction produced no repaired_smiles to accept",
                value=None,
                hint="use_custom_repair or abandon_bond",
            )
        return None

    def resolve_default(self, rt: Orchestrator, task: PipelineTask) -> tuple[str, dict[str, Any], str]:
        raise NotImplementedError  # pragma: no cover

    def apply(
        self,
        rt: Orchestrator,
        task: PipelineTask,
        action: str,
        params: dict[str, Any],
        instruction: DecisionInstruction,
    ) -> str:
        raise NotImplementedError  # pragma: no cover


__all__ = [
    "Action",
    "DecisionPoint",
    "DT",
    "STRATEGIES",
    "RECURSION_ACTIONS",
    "bad_params",
    "recursion_default",
]

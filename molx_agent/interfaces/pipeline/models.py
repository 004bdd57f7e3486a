"""Value types of the task pipeline: tasks, routes, DecisionContext and DecisionInstruction (seed 000)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TaskType(StrEnum):
    STRATEGY = "STRATEGY"  # decide_strategy on the target -> strategy_selection
    ANALYZE = "ANALYZE"  # analyze_molecule on one molecule -> disconnection_decision
    DISCONNECT = "DISCONNECT"  # break_bond / custom reaction / propose_disconnection -> VALIDATE
    VALIDATE = "VALIDATE"  # validate_reaction -> validation_judgment
    REPAIR = "REPAIR"  # repair_reaction -> repair_judgment
    RECURSION = "RECURSION"  # precursor expansion -> recursion_decision


class TaskStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    AWAITING_DECISION = "AWAITING_DECISION"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"


class DecisionType(StrEnum):
    STRATEGY_SELECTION = "strategy_selection"
    DISCONNECTION_DECISION = "disconnection_decision"
    VALIDATION_JUDGMENT = "validation_judgment"
    REPAIR_JUDGMENT = "repair_judgment"
    RECURSION_DECISION = "recursion_decision"


class RouteStatus(StrEnum):
    PLANNED = "planned"  # tasks seeded, nothing run yet
    RUNNING = "running"
    PAUSED = "paused"  # waiting for a DecisionInstruction
    COMPLETED = "completed"  # no task left; every leaf terminal
    FAILED = "failed"  # the target could not be disconnected any further (no bond left)
    LIMIT_REACHED = "limit_reached"  # MAX_TOTAL_TASKS hit; finalize reports the partial route


class PipelineTask(BaseModel):
    """One unit of work of a route."""

    id: str
    type: TaskType
    status: TaskStatus = TaskStatus.PENDING
    node_id: str = ""  # RetroGraph molecule node the task works on
    smiles: str = ""  # molecule (or reaction SMILES for VALIDATE / REPAIR)
    depth: int = 0
    parent_id: str | None = None
    depends_on: list[str] = Field(default_factory=list)
    inputs: dict[str, Any] = Field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    decision: dict[str, Any] | None = None  # the DecisionInstruction applied (and what it resolved to)
    created_at: str = Field(default_factory=now_iso)
    finished_at: str | None = None


class DecisionContext(BaseModel):
    """What the orchestrator hands the decision maker when it pauses (seed 000 field names)."""

    decision_type: DecisionType
    task_id: str
    context: dict[str, Any]
    available_actions: list[dict[str, Any]]
    decision_history: list[dict[str, Any]] = Field(default_factory=list)
    exploration_tools: list[dict[str, Any]] = Field(default_factory=list)
    exploration_budget: int = 5

    def action_ids(self) -> list[str]:
        return [a["action_id"] for a in self.available_actions]


class DecisionInstruction(BaseModel):
    """What the decision maker answers (seed 000 field names); unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    action: str
    params: dict[str, Any] = Field(default_factory=dict)
    reasoning: str | None = None
    exploration_log: list[str] | None = None
    reaction_conditions: dict[str, Any] | None = None

    @field_validator("task_id", mode="before")
    @classmethod
    def _task_id_str(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("params", mode="before")
    @classmethod
    def _params_none(cls, value: Any) -> Any:
        return {} if value is None else value


class RouteState(BaseModel):
    """Everything about one route: its tasks, the pending decision, the history and the graph."""

    route_id: str
    target_smiles: str
    target_name: str = ""
    status: RouteStatus = RouteStatus.PLANNED
    strategy: str | None = None
    tasks: dict[str, PipelineTask] = Field(default_factory=dict)
    next_seq: int = 1
    pending_decision: DecisionContext | None = None
    exploration_used: dict[str, int] = Field(default_factory=dict)  # decision task id -> calls used
    exploration_log: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    decision_history: list[dict[str, Any]] = Field(default_factory=list)
    graph: dict[str, Any] = Field(default_factory=dict)  # RetroGraph.to_dict()
    audit: dict[str, Any] = Field(default_factory=dict)  # SynthesisAuditState.to_dict()
    notes: list[str] = Field(default_factory=list)
    last_error: dict[str, Any] | None = None
    created_at: str = Field(default_factory=now_iso)
    updated_at: str = Field(default_factory=now_iso)

    def task_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for task in self.tasks.values():
            counts[task.status.value] = counts.get(task.status.value, 0) + 1
        return counts


__all__ = [
    "TaskType",
    "TaskStatus",
    "DecisionType",
    "RouteStatus",
    "PipelineTask",
    "DecisionContext",
    "DecisionInstruction",
    "RouteState",
    "now_iso",
]

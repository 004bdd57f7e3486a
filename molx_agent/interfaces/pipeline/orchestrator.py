"""The pause/resume orchestrator of one route (seed 000, "LLM 驱动暂停-恢复协议").

``Orchestrator.run()`` executes pending tasks (each one skill call) until a task reaches a
decision point; that task becomes ``AWAITING_DECISION`` and the route pauses with a
:class:`DecisionContext`.  ``decide()`` validates a :class:`DecisionInstruction` (the task id
must match, the action must be available, its params must make sense), applies it and
resumes.  Every mutation is transactional: on any error the route is left exactly as it was.
The orchestrator works in memory; :mod:`.session_store` loads and saves routes atomically.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError as PydanticValidationError

from molx_agent.errors import ChemistryError, RetroError, ValidationError
from molx_agent.interfaces.pipeline import exploration
from molx_agent.interfaces.pipeline.decisions import DECISION_POINTS
from molx_agent.interfaces.pipeline.executors import TaskExecutors
from molx_agent.interfaces.pipeline.limits import LIMITS, RetroLimits
from molx_agent.interfaces.pipeline.models import (
    DecisionContext,
    DecisionInstruction,
    PipelineTask,
    RouteState,
    RouteStatus,
    TaskStatus,
    TaskType,
    now_iso,
)
from molx_agent.interfaces.pipeline.route_ops import (
    ExplorationBudgetExhausted,
    RepairRetriesExhausted,
    TaskLimitExceeded,
    canonical_nomap,
)
from molx_agent.interfaces.skills.base import format_validation_error
from molx_agent.retro.route import RetroGraph

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

logger = logging.getLogger(__name__)

MAX_AUTO_DECISIONS = 1000

#: a decision maker: DecisionContext -> DecisionInstruction (dict or model), or None for "no answer"
Decider = Callable[[DecisionContext], "dict[str, Any] | DecisionInstruction | None"]


class Orchestrator(TaskExecutors):
    """Runs one route; holds its :class:`RouteState` and its :class:`RetroGraph`.

    ``engine``: the :class:`~molx_agent.retro.engine.RetroEngine` every skill of the route runs on (default: the
    process-wide engine); ``stock``: the session's stock spec, bound to that engine at first use.
    """

    def __init__(
        self,
        route: RouteState,
        *,
        limits: RetroLimits = LIMITS,
        stock: str | None = None,
        with_proposals: bool = True,
        engine: RetroEngine | None = None,
    ) -> None:
        self.route = route
        self.limits = limits
        self.stock = stock
        self.with_proposals = with_proposals
        self._base_engine = engine
        self._engine: RetroEngine | None = None
        self.graph = (
            RetroGraph.from_dict(route.graph)
            if route.graph
            else RetroGraph.new(route.target_smiles, route.target_name)
        )

    @property
    def engine(self) -> RetroEngine:
        """The route's engine: the injected (or default) engine on the session's stock (bound at first use)."""
        if self._engine is None:
            from molx_agent.interfaces._engine import engine_or_default, engine_with_stock

            self._engine = engine_with_stock(engine_or_default(self._base_engine), self.stock)
        return self._engine

    # ------------------------------------------------------------------ planning
    @classmethod
    def plan(cls, route_id: str, target_smiles: str, *, name: str = "", **kw: Any) -> Orchestrator:
        """A new route for ``target_smiles`` with its seed tasks (STRATEGY, ANALYZE, DISCONNECT)."""
        can = canonical_nomap(target_smiles)
        if can is None:
            raise ChemistryError(
                "invalid_smiles",
                f"Failed to parse SMILES: {target_smiles!r}",
                value=target_smiles,
                hint="check brackets, valences and aromaticity",
            )
        if "." in can:
            raise ChemistryError(
                "multiple_molecules", "the target must be a single molecule", value=target_smiles
            )
        route = RouteState(route_id=route_id, target_smiles=can, target_name=name)
        rt = cls(route, **kw)
        strategy = rt.new_task(TaskType.STRATEGY, node_id=rt.graph.target_id, smiles=can, depth=0)
        rt.spawn_analysis(rt.graph.target_id, parent_id=strategy.id, depends_on=[strategy.id])
        rt.sync()
        return rt

    # ------------------------------------------------------------------ tasks
    def new_task(
        self,
        type_: TaskType,
        *,
        node_id: str,
        smiles: str,
        depth: int,
        inputs: dict[str, Any] | None = None,
        parent_id: str | None = None,
        depends_on: list[str] | None = None,
    ) -> PipelineTask:
        self.require_task_slots(1)
        task = PipelineTask(
            id=str(self.route.next_seq),
            type=type_,
            node_id=node_id,
            smiles=smiles,
            depth=depth,
            inputs=dict(inputs or {}),
            parent_id=parent_id,
            depends_on=list(depends_on or []),
        )
        self.route.next_seq += 1
        self.route.tasks[task.id] = task
        return task

    def require_task_slots(self, n: int) -> None:
        used = len(self.route.tasks)
        if used + n > self.limits.MAX_TOTAL_TASKS:
            raise TaskLimitExceeded(
                message=f"route {self.route.route_id} would exceed MAX_TOTAL_TASKS={self.limits.MAX_TOTAL_TASKS} "
                f"({used} tasks used, {n} more needed)",
                severity="high",
                value=used,
                hint="simplify: mark more precursors as terminal (mark_terminal), reduce recursion depth, "
                "or finalize the partial route",
            )

    def spawn_analysis(
        self,
        node_id: str,
        *,
        parent_id: str | None,
        depends_on: list[str] | None = None,
        reuse_from: str | None = None,
        last_error: dict[str, Any] | None = None,
    ) -> PipelineTask:
        """ANALYZE (-> disconnection_decision) + its DISCONNECT task for one molecule node."""
        self.require_task_slots(2)
        node = self.graph.molecule_nodes[node_id]
        analyze = self.new_task(
            TaskType.ANALYZE,
            node_id=node_id,
            smiles=node.smiles,
            depth=node.depth,
            parent_id=parent_id,
            depends_on=depends_on,
            inputs={"reuse_from": reuse_from, "last_error": last_error},
        )
        disconnect = self.new_task(
            TaskType.DISCONNECT,
            node_id=node_id,
            smiles=node.smiles,
            depth=node.depth,
            parent_id=analyze.id,
            depends_on=[analyze.id],
            inputs={"analyze_task": analyze.id},
        )
        analyze.inputs["disconnect_task"] = disconnect.id
        return analyze

    def _runnable(self) -> PipelineTask | None:
        for task in sorted(self.route.tasks.values(), key=lambda t: int(t.id)):
            if task.status != TaskStatus.PENDING:
                continue
            deps = [self.route.tasks[d] for d in task.depends_on if d in self.route.tasks]
            if any(d.status in (TaskStatus.FAILED, TaskStatus.SKIPPED) for d in deps):
                task.status = TaskStatus.SKIPPED
                task.finished_at = now_iso()
                continue
            if all(d.status == TaskStatus.COMPLETED for d in deps):
                return task
        return None

    def sync(self) -> None:
        self.route.graph = self.graph.to_dict()
        self.route.updated_at = now_iso()

    def _snapshot(self) -> tuple[RouteState, dict[str, Any]]:
        return self.route.model_copy(deep=True), self.graph.to_dict()

    def _restore(self, snap: tuple[RouteState, dict[str, Any]]) -> None:
        self.route, graph = snap
        self.graph = RetroGraph.from_dict(graph)

    # ------------------------------------------------------------------ run loop
    def run(self, *, auto: bool = False) -> dict[str, Any]:
        """Execute tasks until a decision point (or, with ``auto``, decide everything by ``use_default``)."""
        n_auto = 0
        while True:
            if self.route.pending_decision is not None:
                if not auto:
                    self.route.status = RouteStatus.PAUSED
                    break
                if n_auto >= MAX_AUTO_DECISIONS:  # pragma: no cover - guarded by MAX_TOTAL_TASKS
                    break
                pending = self.route.pending_decision
                try:
                    self.decide(
                        {"task_id": pending.task_id, "action": "use_default"},
                        resume=False,
                    )
                except TaskLimitExceeded as exc:
                    self.route.status = RouteStatus.LIMIT_REACHED
                    self.route.last_error = exc.to_dict()
                    break
                n_auto += 1
                continue
            task = self._runnable()
            if task is None:
                self._finish()
                break
            snap = self._snapshot()
            try:
                self.route.status = RouteStatus.RUNNING
                self._execute(task)
            except TaskLimitExceeded as exc:
                self._restore(snap)
                self.route.status = RouteStatus.LIMIT_REACHED
                self.route.last_error = exc.to_dict()
                break
        self.sync()
        return self.outcome()

    def run_with(self, decider: Decider, *, max_decisions: int = MAX_AUTO_DECISIONS) -> dict[str, Any]:
        """Drive the route with ``decider`` (e.g. an LLM) until it stops pausing.

        At each pause ``decider(context)`` returns a DecisionInstruction (dict or model) or ``None``.
        An instruction the orchestrator rejects (or ``None``, or a decider that raises) falls back to
        ``use_default``; the history entry of that decision keeps the rejected error under ``fallback_from``.
        """
        out = self.run()
        for _ in range(max_decisions):
            pending = self.route.pending_decision
            if out["status"] != RouteStatus.PAUSED.value or pending is None:
                break
            try:
                instruction = decider(pending.model_copy(deep=True))
                if instruction is None:
                    raise ValidationError("no_instruction", "the decider returned no instruction")
                self.decide(instruction, resume=False)
            except Exception as exc:  # noqa: BLE001 - any bad answer falls back to the rule default
                reason = (
                    exc.to_dict()
                    if isinstance(exc, RetroError)
                    else {"code": "decider_error", "message": str(exc)}
                )
                logger.info("decision at task %s fell back to use_default: %s", pending.task_id, reason)
                try:
                    self.decide({"task_id": pending.task_id, "action": "use_default"}, resume=False)
                except TaskLimitExceeded as limit:
                    self.route.status = RouteStatus.LIMIT_REACHED
                    self.route.last_error = limit.to_dict()
                    self.sync()
                    return self.outcome()
                self.route.decision_history[-1]["fallback_from"] = reason
            out = self.run()
        return out

    def _finish(self) -> None:
        if self.graph.is_complete() and self.graph.n_steps > 0:
            self.route.status = RouteStatus.COMPLETED
        elif self.graph.is_complete():
            self.route.status = RouteStatus.COMPLETED  # a target marked terminal needs no step
        else:
            self.route.status = RouteStatus.FAILED
            pending = [n.smiles for n in self.graph.leaves() if n.role != "terminal"]
            # molecules whose failure a task already noted (e.g. every disconnection tried) are not repeated
            unexplained = [s for s in pending if not any(s in note for note in self.route.notes)]
            if unexplained:
                self.route.notes.append(f"no disconnection left for: {', '.join(unexplained)}")

    def outcome(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.route.status.value, "route_id": self.route.route_id}
        if self.route.pending_decision is not None:
            self.route.pending_decision.context["route_summary"] = self.route_summary()
            out.update(self.route.pending_decision.model_dump(mode="json"))
        else:
            out["route_summary"] = self.route_summary()
        if self.route.status == RouteStatus.LIMIT_REACHED and self.route.last_error:
            out["error"] = self.route.last_error
            out["next"] = "decide with fewer decompositions (mark_terminal), or finalize the partial route"
        elif self.route.status == RouteStatus.COMPLETED:
            out["next"] = "finalize"
        elif self.route.status == RouteStatus.FAILED:
            out["reasons"] = list(self.route.notes)
            out["next"] = "finalize writes the partial route; or plan a new route"
        elif self.route.status == RouteStatus.PAUSED:
            out["next"] = (
                "explore (optional), then decide with a DecisionInstruction for task_id "
                + self.route.pending_decision.task_id
            )  # type: ignore[union-attr]
        return out

    def route_summary(self) -> dict[str, Any]:
        return {
            "route_id": self.route.route_id,
            "target_smiles": self.route.target_smiles,
            "strategy": self.route.strategy,
            "completed_steps": self.graph.n_steps,
            "total_tasks": len(self.route.tasks),
            "max_total_tasks": self.limits.MAX_TOTAL_TASKS,
            "current_max_depth": max((n.depth for n in self.graph.molecule_nodes.values()), default=0),
            "pending_molecules": [n.smiles for n in self.graph.leaves() if n.role != "terminal"],
            "terminal_molecules": [n.smiles for n in self.graph.terminals()],
        }

    # ------------------------------------------------------------------ decisions
    def decide(
        self, instruction: dict[str, Any] | DecisionInstruction, *, resume: bool = True
    ) -> dict[str, Any]:
        """Validate and apply ``instruction`` to the pending decision, then (``resume``) run on."""
        pending = self.route.pending_decision
        if pending is None:
            raise ValidationError(
                "no_pending_decision",
                f"route {self.route.route_id} is not waiting for a decision (status: {self.route.status.value})",
                value=self.route.status.value,
                hint="call `run` first; decide only answers a DecisionContext",
            )
        if not isinstance(instruction, DecisionInstruction):
            try:
                instruction = DecisionInstruction.model_validate(instruction)
            except PydanticValidationError as exc:
                raise ValidationError(
                    "invalid_instruction",
                    f"invalid DecisionInstruction: {format_validation_error(exc)}",
                    value=instruction,
                    hint='{"task_id": "...", "action": "...", "params": {...}}',
                ) from None
        if instruction.task_id != pending.task_id:
            raise ValidationError(
                "task_id_mismatch",
                f"task_id {instruction.task_id!r} does not match the pending decision's task_id {pending.task_id!r}",
                value=instruction.task_id,
                hint=f"use task_id {pending.task_id!r}",
            )
        ids = pending.action_ids()
        if instruction.action not in ids:
            point = DECISION_POINTS[pending.decision_type]
            if instruction.action in {a.action_id for a in point.actions}:
                reason = point.unavailable_reason(self, self.route.tasks[pending.task_id], instruction.action)
                if reason is not None:
                    raise reason
            raise ValidationError(
                "action_not_available",
                f"action {instruction.action!r} is not available at this {pending.decision_type.value}",
                value=instruction.action,
                hint=f"available actions: {', '.join(ids)}",
            )
        snap = self._snapshot()
        try:
            self._apply(pending, instruction)
        except BaseException:
            self._restore(snap)
            raise
        self.sync()
        if resume:
            return self.run()
        return self.outcome()

    def _apply(self, pending: DecisionContext, instruction: DecisionInstruction) -> None:
        task = self.route.tasks[pending.task_id]
        point = DECISION_POINTS[pending.decision_type]
        action, params, why = instruction.action, dict(instruction.params), ""
        if action == "use_default":
            action, params, why = point.resolve_default(self, task)
            instruction = instruction.model_copy(
                update={"reasoning": instruction.reasoning or f"use_default: {why}"}
            )
        summary = point.apply(self, task, action, params, instruction)
        record = {
            "decision_type": pending.decision_type.value,
            "task_id": task.id,
            "action": instruction.action,
            "resolved_action": action,
            "params": params,
            "default_rule": why or None,
            "reasoning_preview": (instruction.reasoning or why or "")[:160],
            "outcome": summary,
            "exploration_log": instruction.exploration_log or [],
            "at": now_iso(),
        }
        task.decision = {
            **record,
            "reasoning": instruction.reasoning,
            "reaction_conditions": instruction.reaction_conditions,
        }
        self.route.decision_history.append(record)
        self._complete(task)
        self.route.pending_decision = None
        self.route.status = RouteStatus.RUNNING
        self.route.last_error = None

    # ------------------------------------------------------------------ exploration
    def explore(self, tool_id: str, params: dict[str, Any] | None) -> dict[str, Any]:
        pending = self.route.pending_decision
        if pending is None:
            raise ValidationError(
                "no_pending_decision",
                f"route {self.route.route_id} is not paused at a decision; exploration is only allowed there",
                value=self.route.status.value,
                hint="call `run` until it returns status=paused",
            )
        params = params or {}
        exploration.check_tool(tool_id, pending.decision_type, params)
        used = self.route.exploration_used.get(pending.task_id, 0)
        if used >= self.limits.MAX_EXPLORATION_CALLS:
            raise ExplorationBudgetExhausted(
                message=f"exploration budget exhausted: {used}/{self.limits.MAX_EXPLORATION_CALLS} calls used "
                f"at this {pending.decision_type.value} (task {pending.task_id})",
                value=used,
                hint="decide with the information you have, or use action use_default",
            )
        active = [
            str(pg.get("name"))
            for pg in pending.context.get("protecting_groups") or []
            if isinstance(pg, dict) and pg.get("name")
        ]
        result = exploration.run_tool(tool_id, params, active_pgs=active or None, engine=self.engine)
        used += 1
        self.route.exploration_used[pending.task_id] = used
        line = exploration.summarize(tool_id, result)
        self.route.exploration_log.setdefault(pending.task_id, []).append(
            {"tool": tool_id, "params": params, "summary": line, "at": now_iso()}
        )
        pending.exploration_budget = max(0, self.limits.MAX_EXPLORATION_CALLS - used)
        self.sync()
        return {
            "tool": tool_id,
            "decision_type": pending.decision_type.value,
            "task_id": pending.task_id,
            "result": result,
            "log_line": line,
            "exploration_budget": pending.exploration_budget,
        }


__all__ = ["Orchestrator", "TaskLimitExceeded", "ExplorationBudgetExhausted", "RepairRetriesExhausted"]

"""Task executors of the pipeline: one skill call per task, then a pause at its decision point.

:class:`TaskExecutors` is a mixin of :class:`~molx_agent.interfaces.pipeline.orchestrator.Orchestrator`:
``_execute(task)`` runs a STRATEGY, ANALYZE, DISCONNECT, VALIDATE, REPAIR or RECURSION task through
:func:`molx_agent.interfaces.skills.run_skill` on the route's engine (``self.engine``); tasks with a decision point end in ``_pause`` (status
``AWAITING_DECISION`` and a :class:`DecisionContext` on the route).  A failed skill is recorded on the
task and handled (a failed disconnection goes back to the molecule's disconnection decision), never raised.
"""

from __future__ import annotations

from typing import Any

from molx_agent.errors import ExecutionError
from molx_agent.interfaces.pipeline import exploration
from molx_agent.interfaces.pipeline.decisions import DECISION_FOR_TASK, DECISION_POINTS, recursion_default
from molx_agent.interfaces.pipeline.limits import CONFIDENCE_THRESHOLD
from molx_agent.interfaces.pipeline.models import (
    DecisionContext,
    PipelineTask,
    RouteStatus,
    TaskStatus,
    TaskType,
    now_iso,
)
from molx_agent.interfaces.pipeline.route_ops import (
    RouteOps,
    canonical_nomap,
    mol_weight,
    reaction_key,
    split_reaction_smiles,
)
from molx_agent.interfaces.skills import run_skill


class TaskExecutors(RouteOps):
    """Mixin: runs tasks; needs ``route``, ``graph``, ``limits``, ``engine``, ``with_proposals``,
    ``new_task``, ``spawn_analysis`` and ``route_summary`` from the orchestrator."""

    with_proposals: bool
    engine: Any  # the route's RetroEngine (on the session's stock)

    def _skill(self, name: str, args: dict[str, Any]) -> Any:
        """One skill call on the route's engine."""
        return run_skill(name, args, engine=self.engine)

    def _execute(self, task: PipelineTask) -> None:
        task.status = TaskStatus.RUNNING
        handler = {
            TaskType.STRATEGY: self._run_strategy,
            TaskType.ANALYZE: self._run_analyze,
            TaskType.DISCONNECT: self._run_disconnect,
            TaskType.VALIDATE: self._run_validate,
            TaskType.REPAIR: self._run_repair,
            TaskType.RECURSION: self._run_recursion,
        }[task.type]
        handler(task)

    def _pause(self, task: PipelineTask, result: dict[str, Any]) -> None:
        task.result = result
        task.status = TaskStatus.AWAITING_DECISION
        dtype = DECISION_FOR_TASK[task.type]
        point = DECISION_POINTS[dtype]
        used = self.route.exploration_used.get(task.id, 0)
        context = point.build_context(self, task)
        context["route_summary"] = self.route_summary()
        self.route.pending_decision = DecisionContext(
            decision_type=dtype,
            task_id=task.id,
            context=context,
            available_actions=point.available_actions(self, task),
            decision_history=[
                {
                    k: h.get(k)
                    for k in ("decision_type", "task_id", "action", "resolved_action", "reasoning_preview")
                }
                for h in self.route.decision_history
            ],
            exploration_tools=exploration.tools_for(dtype),
            exploration_budget=max(0, self.limits.MAX_EXPLORATION_CALLS - used),
        )
        self.route.status = RouteStatus.PAUSED

    def _complete(self, task: PipelineTask, status: TaskStatus = TaskStatus.COMPLETED) -> None:
        task.status = status
        task.finished_at = now_iso()

    def _run_strategy(self, task: PipelineTask) -> None:
        result: dict[str, Any] = {"errors": []}
        res = self._skill("decide_strategy", {"smiles": task.smiles})
        strategy = res.data if res.success else {}
        if not res.success:
            result["errors"].append({"skill": "decide_strategy", "error": res.error, "code": res.error_code})
        result["strategy"] = strategy
        # decide_strategy already summarises scaffold and selectivity; ask the skills only when it does not
        for key, skill in (
            ("scaffold_summary", "analyze_scaffold"),
            ("selectivity_summary", "analyze_selectivity"),
        ):
            if strategy.get(key) is not None:
                result[key] = strategy[key]
                continue
            res = self._skill(skill, {"smiles": task.smiles})
            result[key] = res.data if res.success else None
            if not res.success:
                result["errors"].append({"skill": skill, "error": res.error, "code": res.error_code})
        avail = self._availability([task.smiles])
        result["target_availability"] = avail[0] if avail else None
        self._pause(task, result)

    def _run_analyze(self, task: PipelineTask) -> None:
        reuse = task.inputs.get("reuse_from")
        analysis = None
        if reuse and reuse in self.route.tasks:
            analysis = (self.route.tasks[reuse].result or {}).get("analysis")
        if analysis is None:
            res = self._skill("analyze_molecule", {"smiles": task.smiles})
            if not res.success:
                task.error = {"code": res.error_code, "message": res.error}
                self._complete(task, TaskStatus.FAILED)
                self.route.notes.append(f"analyze_molecule failed for {task.smiles}: {res.error}")
                return
            analysis = res.data
        result: dict[str, Any] = {"analysis": analysis, "last_error": task.inputs.get("last_error")}
        if self.with_proposals:
            result["model_proposals"] = self._proposals(task)
        self._pause(task, result)

    def _proposals(self, task: PipelineTask) -> Any:
        res = self._skill(
            "propose_disconnection",
            {"target_smiles": task.smiles, "strategy_hint": self.route.strategy, "max_proposals": 5},
        )
        if not res.success:
            return {"error": res.error, "code": res.error_code}
        tried = self.tried_reactions(task.node_id)
        keep = (
            "rank",
            "reaction_smiles",
            "precursors",
            "score",
            "reaction_name",
            "category",
            "template_id",
            "forward_validation",
        )
        return [
            dict({k: p.get(k) for k in keep}, already_tried=reaction_key(p["reaction_smiles"]) in tried)
            for p in res.data.get("proposals", [])
        ]

    def _run_disconnect(self, task: PipelineTask) -> None:
        mode = task.inputs.get("mode")
        inputs: dict[str, Any] = {
            "attempt_key": task.id,
            "analyze_task": task.inputs.get("analyze_task"),
            "choice_reasoning": task.inputs.get("choice_reasoning"),
        }
        if mode == "bond":
            a1, a2 = task.inputs["atom1_idx"], task.inputs["atom2_idx"]
            inputs["bond"] = [a1, a2]
            res = self._skill("break_bond", {"smiles": task.smiles, "atom1_idx": a1, "atom2_idx": a2})
            if not res.success:
                return self._disconnect_failed(task, inputs, res.error, res.error_code)
            data = res.data
            rxn = data.get("reaction_smiles")
            precursors = (
                data.get("precursors")
                or data.get("fragments")
                or (split_reaction_smiles(rxn)[0] if rxn else [])
            )
            if not rxn or not precursors:
                return self._disconnect_failed(
                    task, inputs, "break_bond returned no precursors", "no_precursors"
                )
            guide = (
                data.get("retro_analysis_guide") if isinstance(data.get("retro_analysis_guide"), dict) else {}
            )
            inputs.update(
                reaction_type=guide.get("forward_reaction") or data.get("reaction_type") or "",
                source=f"break_bond:{data.get('source')}" if data.get("source") else "break_bond",
                template_id=data.get("template_id") or "",
                template_name=data.get("reaction_type") or "",
                score=data.get("confidence"),
                conditions=guide.get("conditions"),
                warnings=list(data.get("warnings") or []),
            )
            confidence = data.get("confidence")
            if isinstance(confidence, (int, float)) and confidence < CONFIDENCE_THRESHOLD:
                inputs["low_confidence"] = True
                inputs["warnings"].append(
                    f"low-confidence disconnection: break_bond's rule confidence {confidence:.2f} "
                    f"< CONFIDENCE_THRESHOLD={CONFIDENCE_THRESHOLD}"
                )
        elif mode == "custom":
            rxn, precursors = task.inputs["reaction_smiles"], task.inputs["precursors"]
            inputs.update(reaction_type="", source="llm_proposed")
        elif mode == "propose":
            res = self._skill(
                "propose_disconnection",
                {"target_smiles": task.smiles, "strategy_hint": self.route.strategy, "max_proposals": 20},
            )
            if not res.success:
                return self._disconnect_failed(task, inputs, res.error, res.error_code)
            tried = self.tried_reactions(task.node_id)
            fresh = [
                p for p in res.data.get("proposals", []) if reaction_key(p["reaction_smiles"]) not in tried
            ]
            if not fresh:
                self._complete(task, TaskStatus.SKIPPED)
                task.error = {
                    "code": "no_disconnection_left",
                    "message": "every strategic bond and model proposal has been tried",
                }
                self.route.notes.append(f"no disconnection left for {task.smiles}")
                return
            best = fresh[0]
            rxn, precursors = best["reaction_smiles"], best["precursors"]
            inputs.update(
                reaction_type=best.get("reaction_name") or "",
                source="single_step_model",
                template_id=best.get("template_id"),
                named_template_id=best.get("named_template_id") or "",
                template_name=best.get("reaction_name"),
                category=best.get("category") or "",
                score=best.get("score"),
                mapped_reaction=best.get("mapped_reaction"),
            )
        else:
            raise ExecutionError(
                "no_disconnection_chosen",
                f"DISCONNECT task {task.id} has no chosen disconnection",
                value=task.id,
            )  # pragma: no cover - decisions always set a mode
        task.result = {
            "reaction_smiles": rxn,
            "precursors": precursors,
            **{k: v for k, v in inputs.items() if k not in ("analyze_task",)},
        }
        self.new_task(
            TaskType.VALIDATE,
            node_id=task.node_id,
            smiles=rxn,
            depth=task.depth,
            parent_id=task.id,
            inputs={**inputs, "reaction_smiles": rxn, "precursors": list(precursors)},
        )
        self._complete(task)

    def _disconnect_failed(
        self, task: PipelineTask, inputs: dict[str, Any], error: str, code: str | None
    ) -> None:
        task.error = {"code": code, "message": error}
        self._complete(task, TaskStatus.FAILED)
        self.record_failed_attempt(
            task.node_id,
            [],
            inputs.get("reaction_type", ""),
            error,
            [code or "disconnection_failed"],
            bond=inputs.get("bond"),
            reaction_smiles="",
            attempt_key=task.id,
        )
        self.spawn_analysis(
            task.node_id, parent_id=task.id, reuse_from=inputs.get("analyze_task"), last_error=task.error
        )

    def _run_validate(self, task: PipelineTask) -> None:
        rxn = task.inputs["reaction_smiles"]
        args: dict[str, Any] = {"reaction_smiles": rxn}
        if task.inputs.get("reaction_type"):
            args["reaction_class"] = task.inputs["reaction_type"]
        # the step as the route search judges it: its category, its (named) template, atom map and model score
        if task.inputs.get("category") is not None:
            args["category"] = task.inputs["category"]
        template_id = task.inputs.get("named_template_id") or task.inputs.get("template_id")
        if template_id:
            args["template_id"] = template_id
        if task.inputs.get("mapped_reaction"):
            args["mapped_reaction"] = task.inputs["mapped_reaction"]
        if task.inputs.get("source") == "single_step_model" and isinstance(task.inputs.get("score"), (int, float)):
            args["score"] = float(task.inputs["score"])
        res = self._skill("validate_reaction", args)
        if res.success:
            result = dict(res.data)
        else:
            result = {
                "is_valid": False,
                "verdict": "validation_error",
                "issues": [{"code": res.error_code or "validation_error", "message": res.error}],
            }
        cycle = self._cycle(task.node_id, task.inputs.get("precursors") or [])
        if cycle:
            result["cycle"] = cycle
        self._pause(task, result)

    def _run_repair(self, task: PipelineTask) -> None:
        res = self._skill(
            "repair_reaction",
            {
                "reaction_smiles": task.inputs["reaction_smiles"],
                "issues": task.inputs.get("issues") or ["unspecified"],
            },
        )
        if res.success:
            result = dict(res.data)
            fixed = result.get("repaired_smiles")
            if fixed and not result.get("repaired_precursors"):
                result["repaired_precursors"] = self.reaction_precursors(fixed)
        else:
            result = {"repaired_smiles": None, "error": res.error, "code": res.error_code}
        self._pause(task, result)

    def _run_recursion(self, task: PipelineTask) -> None:
        nodes = [self.graph.molecule_nodes[n] for n in task.inputs["precursor_nodes"]]
        avail = self._availability([n.smiles for n in nodes])
        precursors = []
        for node, rec in zip(nodes, avail, strict=True):
            mw = mol_weight(node.smiles)
            sa = rec.get("sa_score")
            in_stock = bool(rec.get("in_stock"))
            action, reason = recursion_default(sa, mw, in_stock, self.limits.MW_TERMINAL)
            if in_stock:
                reason = f"in stock ({rec.get('source')})"
            precursors.append(
                {
                    "smiles": node.smiles,
                    "canonical_smiles": canonical_nomap(node.smiles) or node.smiles,
                    "node_id": node.node_id,
                    "depth": node.depth,
                    "sa_score": sa,
                    "molecular_weight": mw,
                    "available": rec.get("available"),
                    "in_stock": in_stock,
                    "source": rec.get("source"),
                    "suggested_action": action,
                    "reason": reason,
                }
            )
        self._pause(task, {"precursors": precursors})

    def _availability(self, smiles: list[str]) -> list[dict[str, Any]]:
        res = self._skill("check_availability", {"smiles_list": smiles})  # the engine is on the session's stock
        if not res.success:
            return [{"smiles": s, "available": None, "source": None, "error": res.error} for s in smiles]
        return list(res.data["precursors"])


__all__ = ["TaskExecutors"]

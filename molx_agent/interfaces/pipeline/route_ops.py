"""Route operations the decision points call: bookkeeping, checks and graph mutations.

:class:`RouteOps` is a mixin of :class:`~molx_agent.interfaces.pipeline.orchestrator.Orchestrator`;
it owns the checks on an instruction's params (bonds, custom reactions, SMILES), the repair
and failed-attempt bookkeeping and every change of the RetroGraph (commit a step, expand
precursors, abandon a disconnection).
"""

from __future__ import annotations

from typing import Any

from molx_agent.errors import ExecutionError, ValidationError
from molx_agent.interfaces.pipeline.limits import RetroLimits
from molx_agent.interfaces.pipeline.models import (
    DecisionInstruction,
    DecisionType,
    PipelineTask,
    RouteState,
    TaskType,
)
from molx_agent.retro.route import LLMDecision, RetroGraph, TemplateEvidence


class TaskLimitExceeded(ExecutionError):
    default_code = "task_limit_exceeded"


class ExplorationBudgetExhausted(ExecutionError):
    default_code = "exploration_budget_exhausted"


class RepairRetriesExhausted(ValidationError):
    default_code = "repair_retries_exhausted"


def canonical_nomap(smiles: str) -> str | None:
    """Canonical SMILES without atom maps, or ``None`` when ``smiles`` is not one usable SMILES (unparsable, or
    breaking the input rules of ``molx_agent.limits``: whitespace inside, too long, too many atoms)."""
    from rdkit import Chem, rdBase

    from molx_agent.chem.utils import map_free_smiles
    from molx_agent.errors import ChemistryError
    from molx_agent.limits import check_heavy_atoms, check_smiles_text

    try:
        text = check_smiles_text(smiles)
    except ChemistryError:
        return None
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(text)
    if mol is None:
        return None
    try:
        check_heavy_atoms(mol)
    except ChemistryError:
        return None
    return map_free_smiles(mol)


def mol_weight(smiles: str) -> float | None:
    from rdkit import Chem, rdBase
    from rdkit.Chem import Descriptors

    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    return round(Descriptors.MolWt(mol), 2) if mol is not None else None


def split_reaction_smiles(rxn: str) -> tuple[list[str], list[str]]:
    parts = rxn.split(">")
    if len(parts) != 3:
        return [], []
    return [s for s in parts[0].split(".") if s], [s for s in parts[2].split(".") if s]


def reaction_key(rxn: str) -> str:
    left, right = split_reaction_smiles(rxn or "")
    return (
        ".".join(sorted(canonical_nomap(s) or s for s in left))
        + ">>"
        + ".".join(sorted(canonical_nomap(s) or s for s in right))
    )


class RouteOps:
    """Mixin: needs ``route``, ``graph``, ``limits``, ``new_task`` and ``spawn_analysis``."""

    route: RouteState
    graph: RetroGraph
    limits: RetroLimits

    def node_smiles(self, node_id: str) -> str:
        return self.graph.molecule_nodes[node_id].smiles

    def failed_attempts_for(self, node_id: str) -> list[dict[str, Any]]:
        return [f for f in self.route.audit.get("failed_attempts", []) if f.get("node_id") == node_id]

    def tried_bonds(self, node_id: str) -> set[tuple[int, int]]:
        out = set()
        for f in self.failed_attempts_for(node_id):
            bond = f.get("bond")
            if bond and len(bond) == 2:
                out.add((min(bond), max(bond)))
        return out

    def tried_reactions(self, node_id: str) -> set[str]:
        return {
            reaction_key(f["reaction_smiles"])
            for f in self.failed_attempts_for(node_id)
            if f.get("reaction_smiles")
        }

    def record_failed_attempt(
        self,
        node_id: str,
        precursors: list[str],
        reaction_type: str,
        reason: str,
        hard_fail_reasons: list[str],
        *,
        bond: list[int] | None,
        reaction_smiles: str,
        attempt_key: str,
    ) -> None:
        self.route.audit.setdefault("failed_attempts", []).append(
            {
                "molecule": self.node_smiles(node_id),
                "node_id": node_id,
                "precursors": list(precursors),
                "reaction_type": reaction_type,
                "reason": reason,
                "hard_fail_reasons": list(hard_fail_reasons),
                "bond": bond,
                "reaction_smiles": reaction_smiles,
                "attempt_key": attempt_key,
            }
        )

    def repair_count(self, attempt_key: str) -> int:
        return sum(
            1
            for t in self.route.tasks.values()
            if t.type == TaskType.REPAIR and t.inputs.get("attempt_key") == attempt_key
        )

    def repair_retries_left(self, attempt_key: str) -> int:
        return max(0, self.limits.MAX_REPAIR_RETRIES - self.repair_count(attempt_key))

    def require_repair_left(self, attempt_key: str) -> None:
        if self.repair_retries_left(attempt_key) <= 0:
            raise RepairRetriesExhausted(
                message=f"repair retries exhausted: MAX_REPAIR_RETRIES={self.limits.MAX_REPAIR_RETRIES} repairs "
                "already tried for this disconnection",
                value=self.repair_count(attempt_key),
                hint="abandon this bond (abandon_bond / retry_other_bond) and try another disconnection",
            )

    def canonical(self, smiles: Any, dtype: DecisionType, action: str) -> str:
        can = canonical_nomap(smiles) if isinstance(smiles, str) else None
        if can is None:
            raise ValidationError(
                "invalid_smiles", f"{dtype.value}/{action}: Failed to parse SMILES: {smiles!r}", value=smiles
            )
        return can

    def check_bond(self, smiles: str, a1: int, a2: int) -> None:
        from rdkit import Chem, rdBase

        with rdBase.BlockLogs():
            mol = Chem.MolFromSmiles(smiles)
        n = mol.GetNumAtoms()
        if not (0 <= a1 < n and 0 <= a2 < n):
            raise ValidationError(
                "invalid_bond",
                f"atom index out of range (the molecule has {n} atoms: 0..{n - 1})",
                value=[a1, a2],
                hint="take the indices from atom_bond_map.strategic_bonds",
            )
        if mol.GetBondBetweenAtoms(a1, a2) is None:
            raise ValidationError(
                "invalid_bond",
                f"atoms {a1} and {a2} are not bonded in {smiles}",
                value=[a1, a2],
                hint="take the indices from atom_bond_map.strategic_bonds",
            )

    def check_custom_reaction(
        self, task: PipelineTask, rxn: str, precursors: Any, dtype: DecisionType, action: str
    ) -> list[str]:
        """Precursors of a user-given reaction whose product must be ``task``'s molecule."""
        left, right = split_reaction_smiles(rxn)
        if not left or not right:
            raise ValidationError(
                "invalid_reaction", f"{dtype.value}/{action}: not a reaction SMILES 'A.B>>C'", value=rxn
            )
        product = canonical_nomap(self.node_smiles(task.node_id))
        products = [self.canonical(s, dtype, action) for s in right]
        if product not in products:
            raise ValidationError(
                "product_mismatch",
                f"{dtype.value}/{action}: the reaction does not make {self.node_smiles(task.node_id)}",
                value=rxn,
                hint="the product side must contain the molecule being disconnected",
            )
        if precursors is None:
            precursors = left
        if (
            not isinstance(precursors, list)
            or not precursors
            or not all(isinstance(p, str) for p in precursors)
        ):
            raise ValidationError(
                "invalid_decision_params",
                f"{dtype.value}/{action}: precursors must be a list of SMILES",
                value=precursors,
            )
        for p in precursors:
            self.canonical(p, dtype, action)
        return list(precursors)

    def reaction_precursors(self, rxn: str) -> list[str]:
        return split_reaction_smiles(rxn)[0]

    def _ancestors(self, node_id: str) -> list[str]:
        """SMILES of ``node_id`` and every molecule above it."""
        out, current = [], node_id
        parents = {r: rxn.product_node for rxn in self.graph.reaction_nodes for r in rxn.reactant_nodes}
        while current is not None:
            out.append(canonical_nomap(self.node_smiles(current)) or "")
            current = parents.get(current)
        return out

    def _cycle(self, node_id: str, precursors: list[str]) -> dict[str, Any] | None:
        ancestors = set(self._ancestors(node_id))
        bad = [p for p in precursors if canonical_nomap(p) in ancestors]
        if bad:
            return {"precursors": bad, "message": "a precursor equals the molecule or one of its ancestors"}
        return None

    def commit_step(
        self, task: PipelineTask, instruction: DecisionInstruction, conditions: dict[str, Any] | None = None
    ) -> str:
        """Write the validated step of VALIDATE ``task`` into the graph and queue its RECURSION task."""
        if self.graph.reaction_for(task.node_id) is not None:  # pragma: no cover - one accepted step per node
            raise ValidationError(
                "already_disconnected",
                "this molecule already has an accepted step",
                value=self.node_smiles(task.node_id),
            )
        self.require_task_slots(1)
        res = task.result or {}
        inp = task.inputs
        fa = res.get("feasibility_assessment") or {}
        fv = {
            k: res.get(k) for k in ("is_valid", "verdict", "issues", "atom_balance", "byproducts") if k in res
        }
        fv["feasibility_assessment"] = fa
        if isinstance(fa, dict) and "feasibility_score" in fa:
            fv["feasibility_score"] = fa.get("feasibility_score")
        fv["pass"] = bool(res.get("is_valid"))
        reasoning = instruction.reasoning or "accepted"
        if inp.get("choice_reasoning"):
            reasoning = f"disconnection: {inp['choice_reasoning']} | validation: {reasoning}"
        if conditions:
            reasoning += f" | conditions: {conditions}"
        rxn = self.graph.add_reaction(
            task.node_id,
            list(inp.get("precursors") or []),
            inp.get("reaction_smiles"),
            reaction_type=(conditions or {}).get("reaction_type") or inp.get("reaction_type") or "",
            template_evidence=TemplateEvidence(
                template_id=inp.get("template_id") or "",
                template_name=inp.get("template_name") or "",
                category=inp.get("category") or "",
                confidence=float(inp.get("score") or 0.0),
                source=inp.get("source") or "",
            ),
            llm_decision=LLMDecision(selection_reasoning=reasoning, confidence="medium"),
            forward_validation=fv,
            mapped_reaction=inp.get("mapped_reaction") or "",
        )
        if conditions:
            self.graph.metadata.setdefault("reaction_conditions", {})[rxn.step_id] = dict(conditions)
        self.route.audit.setdefault("decision_history", []).append(
            {
                "step_id": rxn.step_id,
                "molecule": self.node_smiles(task.node_id),
                "action": "decide",
                "reaction_name": rxn.reaction_type,
                "reasoning_summary": reasoning[:200],
                "outcome": "committed",
                "confidence": "medium",
            }
        )
        self.route.audit["linear_step_count"] = self.graph.longest_linear_sequence()
        self.new_task(
            TaskType.RECURSION,
            node_id=task.node_id,
            smiles=self.node_smiles(task.node_id),
            depth=task.depth,
            parent_id=task.id,
            inputs={
                "step_id": rxn.step_id,
                "reaction_smiles": rxn.reaction_smiles,
                "precursor_nodes": list(rxn.reactant_nodes),
            },
        )
        return rxn.step_id

    def new_repair_task(self, task: PipelineTask, rxn: str, issues: list[Any]) -> PipelineTask:
        return self.new_task(
            TaskType.REPAIR,
            node_id=task.node_id,
            smiles=rxn,
            depth=task.depth,
            parent_id=task.id,
            inputs={k: v for k, v in task.inputs.items() if k not in ("reaction_smiles", "precursors")}
            | {"reaction_smiles": rxn, "issues": list(issues)},
        )

    def new_validate_task(
        self, task: PipelineTask, rxn: str, precursors: list[str], *, repaired: bool
    ) -> PipelineTask:
        inputs = {
            k: v for k, v in task.inputs.items() if k not in ("reaction_smiles", "precursors", "issues")
        }
        inputs.update(reaction_smiles=rxn, precursors=list(precursors), repaired=repaired)
        return self.new_task(
            TaskType.VALIDATE,
            node_id=task.node_id,
            smiles=rxn,
            depth=task.depth,
            parent_id=task.id,
            inputs=inputs,
        )

    def abandon_disconnection(self, task: PipelineTask, reason: str, *, reanalyze: bool) -> None:
        res = task.result or {}
        codes = [str(i.get("code")) for i in res.get("issues") or [] if isinstance(i, dict) and i.get("code")]
        self.record_failed_attempt(
            task.node_id,
            list(task.inputs.get("precursors") or []),
            task.inputs.get("reaction_type") or "",
            reason,
            codes,
            bond=task.inputs.get("bond"),
            reaction_smiles=task.inputs.get("reaction_smiles") or "",
            attempt_key=task.inputs.get("attempt_key") or task.id,
        )
        reuse = None if reanalyze else task.inputs.get("analyze_task")
        self.spawn_analysis(task.node_id, parent_id=task.id, reuse_from=reuse)

    def expand_precursors(
        self, task: PipelineTask, precursors: list[dict[str, Any]], chosen: dict[str, tuple[str, str]]
    ) -> str:
        max_depth = min(self.limits.MAX_DEPTH, self.limits.MAX_GRAPH_DEPTH)
        plan = []
        for p in precursors:
            action, reason = chosen.get(
                p["node_id"], (p["suggested_action"], f"default: {p.get('reason', '')}")
            )
            if action == "decompose" and p["depth"] >= max_depth:
                action, reason = (
                    "mark_terminal",
                    f"MAX_DEPTH={self.limits.MAX_DEPTH} reached: not decomposed further",
                )
            plan.append((p, action, reason))
        self.require_task_slots(2 * sum(1 for _, a, _ in plan if a == "decompose"))
        counts: dict[str, int] = {}
        for p, action, reason in plan:
            node = self.graph.molecule_nodes[p["node_id"]]
            node.availability = {k: p.get(k) for k in ("available", "source", "in_stock", "sa_score", "tier")}
            node.complexity = {"sa_score": p.get("sa_score"), "molecular_weight": p.get("molecular_weight")}
            node.decision_context = {"recursion_action": action, "reason": reason, "task_id": task.id}
            counts[action] = counts.get(action, 0) + 1
            if action == "decompose":
                self.spawn_analysis(node.node_id, parent_id=task.id)
            else:
                node.role = "terminal"
                label = reason or action
                if action == "mark_optional":
                    label = f"optional decomposition (easily synthesizable): {reason}".rstrip(": ")
                node.llm_analysis = {"terminal_reason": label, "optional": action == "mark_optional"}
        return ", ".join(f"{n} {a}" for a, n in sorted(counts.items()))


__all__ = [
    "RouteOps",
    "TaskLimitExceeded",
    "ExplorationBudgetExhausted",
    "RepairRetriesExhausted",
    "canonical_nomap",
    "mol_weight",
    "split_reaction_smiles",
    "reaction_key",
]

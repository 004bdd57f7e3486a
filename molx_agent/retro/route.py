"""One route/graph model shared by every retrosynthesis surface.

The search engine, the skills pipeline (seed 000), the interactive session
(seed 001) and every report build and read :class:`RetroGraph`.  Field names
follow seed 001 section 2.  Everything round-trips through ``to_dict`` /
``from_dict`` (plain JSON types only).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import Any

ROLES = ("target", "intermediate", "terminal", "pending")


def _from_dict(cls: type, data: dict[str, Any] | None) -> Any:
    """Build dataclass ``cls`` from ``data``, ignoring unknown keys."""
    data = data or {}
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class TemplateEvidence:
    """Where a reaction step came from."""

    template_id: str = ""
    template_name: str = ""
    category: str = ""
    confidence: float = 0.0
    source: str = ""  # "template" / "single_step_model" / "llm_proposed" / "fgi" / "search"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TemplateEvidence:
        return _from_dict(cls, data)


@dataclass
class LLMDecision:
    """Why a step was chosen (by an LLM, a chemist or the rules policy)."""

    selection_reasoning: str = ""
    confidence: str = "medium"  # "high" / "medium" / "low"
    rejected_alternatives: list[dict[str, Any]] = field(default_factory=list)  # [{method, reason}]
    protection_needed: bool = False
    risk_assessment: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> LLMDecision:
        return _from_dict(cls, data)


@dataclass
class MoleculeNode:
    """A molecule in the route tree."""

    smiles: str
    node_id: str
    role: str = "pending"  # target / intermediate / terminal / pending
    depth: int = 0
    complexity: dict[str, Any] = field(default_factory=dict)  # {cs_score, classification, is_terminal}
    decision_context: dict[str, Any] = field(default_factory=dict)
    llm_analysis: dict[str, Any] = field(default_factory=dict)
    availability: dict[str, Any] = field(default_factory=dict)  # {available, source, ...}
    name: str = ""

    @property
    def in_stock(self) -> bool:
        return bool(self.availability.get("available"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MoleculeNode:
        return _from_dict(cls, data)


@dataclass
class ReactionNode:
    """One retrosynthetic step: ``reactant_nodes`` -> ``product_node``."""

    step_id: str
    depth: int
    reaction_smiles: str  # "A.B>>C"
    product_node: str
    reactant_nodes: list[str]
    reaction_type: str = ""
    template_evidence: TemplateEvidence = field(default_factory=TemplateEvidence)
    llm_decision: LLMDecision = field(default_factory=LLMDecision)
    forward_validation: dict[str, Any] = field(default_factory=dict)
    score: float | None = None
    mapped_reaction: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["template_evidence"] = self.template_evidence.to_dict()
        data["llm_decision"] = self.llm_decision.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReactionNode:
        obj: ReactionNode = _from_dict(cls, data)
        obj.template_evidence = TemplateEvidence.from_dict(data.get("template_evidence"))
        obj.llm_decision = LLMDecision.from_dict(data.get("llm_decision"))
        obj.reactant_nodes = list(obj.reactant_nodes)
        return obj


@dataclass
class ProtectionEntry:
    functional_group: str = ""
    position: str = ""
    protection: str = ""
    install_step: str = "planned"
    remove_step: str = "pending"
    status: str = "planned"  # planned / installed / removed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ProtectionEntry:
        return _from_dict(cls, data)


@dataclass
class DecisionRecord:
    step_id: str = ""
    molecule: str = ""
    action: str = ""  # decide / propose / accept-terminal / skip
    reaction_name: str = ""
    reasoning_summary: str = ""
    outcome: str = ""  # committed / gate_failed / skipped / terminal
    confidence: str = "medium"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> DecisionRecord:
        return _from_dict(cls, data)


@dataclass
class FailedAttempt:
    molecule: str = ""
    precursors: list[str] = field(default_factory=list)
    reaction_type: str = ""
    reason: str = ""
    hard_fail_reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> FailedAttempt:
        return _from_dict(cls, data)


@dataclass
class SynthesisAuditState:
    strategic_plan: dict[str, Any] = field(default_factory=dict)
    protections: list[ProtectionEntry] = field(default_factory=list)
    decision_history: list[DecisionRecord] = field(default_factory=list)
    failed_attempts: list[FailedAttempt] = field(default_factory=list)
    linear_step_count: int = 0
    max_linear_target: int = 8
    target_cs_score: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategic_plan": dict(self.strategic_plan),
            "protections": [p.to_dict() for p in self.protections],
            "decision_history": [d.to_dict() for d in self.decision_history],
            "failed_attempts": [f.to_dict() for f in self.failed_attempts],
            "linear_step_count": self.linear_step_count,
            "max_linear_target": self.max_linear_target,
            "target_cs_score": self.target_cs_score,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> SynthesisAuditState:
        data = data or {}
        return cls(
            strategic_plan=dict(data.get("strategic_plan") or {}),
            protections=[ProtectionEntry.from_dict(p) for p in data.get("protections", [])],
            decision_history=[DecisionRecord.from_dict(d) for d in data.get("decision_history", [])],
            failed_attempts=[FailedAttempt.from_dict(f) for f in data.get("failed_attempts", [])],
            linear_step_count=int(data.get("linear_step_count", 0)),
            max_linear_target=int(data.get("max_linear_target", 8)),
            target_cs_score=float(data.get("target_cs_score", 0.0)),
        )


@dataclass
class RetroGraph:
    """A synthesis tree: molecule nodes keyed by id, reaction nodes in commit order."""

    target_smiles: str
    molecule_nodes: dict[str, MoleculeNode] = field(default_factory=dict)
    reaction_nodes: list[ReactionNode] = field(default_factory=list)
    target_name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    # -- construction -------------------------------------------------
    @classmethod
    def new(cls, target_smiles: str, name: str = "") -> RetroGraph:
        graph = cls(target_smiles=target_smiles, target_name=name)
        graph.add_molecule(target_smiles, role="target", depth=0, name=name)
        return graph

    @property
    def target_id(self) -> str:
        for node in self.molecule_nodes.values():
            if node.role == "target":
                return node.node_id
        return "mol_0"

    def add_molecule(self, smiles: str, role: str = "pending", depth: int = 0, **kw: Any) -> MoleculeNode:
        node_id = f"mol_{len(self.molecule_nodes)}"
        while node_id in self.molecule_nodes:
            node_id = f"mol_{len(self.molecule_nodes) + 1}_{len(node_id)}"
        node = MoleculeNode(smiles=smiles, node_id=node_id, role=role, depth=depth, **kw)
        self.molecule_nodes[node_id] = node
        return node

    def add_reaction(
        self,
        product_node: str,
        reactant_smiles: list[str],
        reaction_smiles: str | None = None,
        **kw: Any,
    ) -> ReactionNode:
        """Add a step; creates pending molecule nodes for the reactants."""
        product = self.molecule_nodes[product_node]
        if product.role not in ("target",):
            product.role = "intermediate"
        depth = product.depth + 1
        reactant_ids = [self.add_molecule(s, role="pending", depth=depth).node_id for s in reactant_smiles]
        if reaction_smiles is None:
            reaction_smiles = ".".join(reactant_smiles) + ">>" + product.smiles
        rxn = ReactionNode(
            step_id=f"rxn_{len(self.reaction_nodes) + 1}",
            depth=product.depth,
            reaction_smiles=reaction_smiles,
            product_node=product_node,
            reactant_nodes=reactant_ids,
            **kw,
        )
        self.reaction_nodes.append(rxn)
        return rxn

    # -- queries --------------------------------------------------------
    def reaction_for(self, product_node: str) -> ReactionNode | None:
        for rxn in self.reaction_nodes:
            if rxn.product_node == product_node:
                return rxn
        return None

    def children(self, node_id: str) -> list[MoleculeNode]:
        rxn = self.reaction_for(node_id)
        return [self.molecule_nodes[r] for r in rxn.reactant_nodes] if rxn else []

    def leaves(self) -> list[MoleculeNode]:
        """Molecules with no reaction making them (starting materials or unsolved)."""
        made = {r.product_node for r in self.reaction_nodes}
        return [n for n in self.molecule_nodes.values() if n.node_id not in made]

    def terminals(self) -> list[MoleculeNode]:
        return [n for n in self.molecule_nodes.values() if n.role == "terminal"]

    def pending(self) -> list[MoleculeNode]:
        return [n for n in self.molecule_nodes.values() if n.role == "pending"]

    @property
    def n_steps(self) -> int:
        return len(self.reaction_nodes)

    def longest_linear_sequence(self) -> int:
        """Number of steps on the longest path from the target to a leaf."""

        def depth(node_id: str) -> int:
            rxn = self.reaction_for(node_id)
            if rxn is None:
                return 0
            return 1 + max((depth(r) for r in rxn.reactant_nodes), default=0)

        return depth(self.target_id)

    def is_complete(self) -> bool:
        """True when every leaf is a terminal (no pending molecule left)."""
        return all(n.role == "terminal" for n in self.leaves()) and bool(self.molecule_nodes)

    def iter_depth_first(self, node_id: str | None = None) -> Iterator[tuple[MoleculeNode, int]]:
        node_id = node_id or self.target_id
        stack = [(node_id, 0)]
        while stack:
            nid, level = stack.pop()
            yield self.molecule_nodes[nid], level
            rxn = self.reaction_for(nid)
            if rxn:
                stack.extend((r, level + 1) for r in reversed(rxn.reactant_nodes))

    def forward_order(self) -> list[ReactionNode]:
        """Reaction steps in the order a chemist would run them (deepest first)."""
        return sorted(self.reaction_nodes, key=lambda r: (-r.depth, r.step_id))

    def to_text(self) -> str:
        """Indented text rendering of the tree."""
        lines: list[str] = []
        for node, level in self.iter_depth_first():
            rxn = self.reaction_for(node.node_id)
            tag = node.role
            if node.availability.get("available"):
                source = node.availability.get("source", "?")
                if source == "sa_estimate":
                    tag += ", not in any stock: judged purchasable from its SA score (estimate)"
                else:
                    tag += f", in stock: {source}"
            step = f"  <= {rxn.step_id} {rxn.reaction_type}".rstrip() if rxn else ""
            lines.append(f"{'  ' * level}{'└─ ' if level else ''}{node.smiles} [{node.node_id}, {tag}]{step}")
        return "\n".join(lines)

    # -- serialisation ----------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "target_smiles": self.target_smiles,
            "target_name": self.target_name,
            "molecule_nodes": {k: v.to_dict() for k, v in self.molecule_nodes.items()},
            "reaction_nodes": [r.to_dict() for r in self.reaction_nodes],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RetroGraph:
        return cls(
            target_smiles=data["target_smiles"],
            target_name=data.get("target_name", ""),
            molecule_nodes={k: MoleculeNode.from_dict(v) for k, v in (data.get("molecule_nodes") or {}).items()},
            reaction_nodes=[ReactionNode.from_dict(r) for r in data.get("reaction_nodes") or []],
            metadata=dict(data.get("metadata") or {}),
        )


__all__ = [
    "ROLES",
    "TemplateEvidence",
    "LLMDecision",
    "MoleculeNode",
    "ReactionNode",
    "ProtectionEntry",
    "DecisionRecord",
    "FailedAttempt",
    "SynthesisAuditState",
    "RetroGraph",
]

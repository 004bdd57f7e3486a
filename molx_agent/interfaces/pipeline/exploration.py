"""The 6 read-only exploration tools an agent may call while a decision is pending (seed 000).

Each decision point has a budget of ``MAX_EXPLORATION_CALLS`` (5) calls; a tool may only be
used at the decision types of the seed's applicability matrix.  Exploration never changes a
task; it only records the call (and spends budget).  The skill-backed tools run on the route's engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from molx_agent.errors import RetroError, SkillError, ValidationError
from molx_agent.interfaces.pipeline.models import DecisionType

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

DT = DecisionType


@dataclass(frozen=True)
class ExplorationTool:
    tool_id: str
    description: str
    required_params: tuple[str, ...]
    optional_params: tuple[str, ...]
    applicable: tuple[DecisionType, ...]
    limitations: str

    def describe(self) -> dict[str, Any]:
        return {
            "tool_id": self.tool_id,
            "description": self.description,
            "required_params": list(self.required_params),
            "optional_params": list(self.optional_params),
            "limitations": self.limitations,
        }


EXPLORATION_TOOLS: dict[str, ExplorationTool] = {
    t.tool_id: t
    for t in (
        ExplorationTool(
            "assess_feasibility",
            "Forward-synthesis feasibility: FG compatibility, side-reaction risk, protection needs, mechanism",
            ("reaction_smiles",),
            ("reaction_class",),
            (DT.DISCONNECTION_DECISION, DT.VALIDATION_JUDGMENT, DT.REPAIR_JUDGMENT),
            "static rules (FG matrix + pattern matching), not a mechanistic simulation; confidence capped at 0.85",
        ),
        ExplorationTool(
            "analyze_selectivity",
            "Chemoselectivity: competing functional groups, reactivity conflicts, protection strategy",
            ("smiles",),
            (),
            (DT.STRATEGY_SELECTION, DT.DISCONNECTION_DECISION, DT.VALIDATION_JUDGMENT, DT.RECURSION_DECISION),
            "SMARTS matching; ignores conformation and solvent; a finite list of conflict pairs",
        ),
        ExplorationTool(
            "analyze_molecule",
            "Molecule analysis: atom_bond_map, functional groups, SA score",
            ("smiles",),
            (),
            (DT.DISCONNECTION_DECISION, DT.RECURSION_DECISION),
            "structural analysis; objective data",
        ),
        ExplorationTool(
            "validate_reaction",
            "Reaction validation: atom balance + chemical plausibility + forward feasibility",
            ("reaction_smiles",),
            ("reaction_class",),
            (DT.DISCONNECTION_DECISION, DT.REPAIR_JUDGMENT),
            "atom balance is exact; plausibility is rule based; byproduct inference covers common patterns only",
        ),
        ExplorationTool(
            "check_availability",
            "Precursor availability: real stock (ZINC in-stock, common reagents, user stock), SA estimate fallback",
            ("smiles_list",),
            (),
            (DT.RECURSION_DECISION, DT.VALIDATION_JUDGMENT),
            "a Bloom filter of ZINC in-stock compounds (rare false positives) plus packaged reagents; no prices",
        ),
        ExplorationTool(
            "recommend_protecting_groups",
            "Orthogonal protecting-group recommendations for the given functional groups",
            ("functional_groups",),
            (),
            (DT.DISCONNECTION_DECISION, DT.VALIDATION_JUDGMENT, DT.REPAIR_JUDGMENT),
            "advisory only: never inserts protection/deprotection steps; check need, compatibility and timing",
        ),
    )
}


def tools_for(decision_type: DecisionType) -> list[dict[str, Any]]:
    """The exploration tools applicable at ``decision_type`` (seed matrix order)."""
    return [t.describe() for t in EXPLORATION_TOOLS.values() if decision_type in t.applicable]


def check_tool(tool_id: str, decision_type: DecisionType, params: dict[str, Any]) -> ExplorationTool:
    """Validate the tool id, its applicability and its required parameters (raises RetroError)."""
    tool = EXPLORATION_TOOLS.get(tool_id)
    if tool is None:
        raise ValidationError(
            "unknown_exploration_tool",
            f"unknown exploration tool {tool_id!r}",
            value=tool_id,
            hint=f"tools: {', '.join(EXPLORATION_TOOLS)}",
        )
    if decision_type not in tool.applicable:
        allowed = [t["tool_id"] for t in tools_for(decision_type)]
        raise ValidationError(
            "tool_not_applicable",
            f"exploration tool {tool_id!r} is not available at a {decision_type.value} decision",
            value=tool_id,
            hint=f"available here: {', '.join(allowed)}",
        )
    if not isinstance(params, dict):
        raise ValidationError("invalid_exploration_params", "--params must be a JSON object", value=params)
    missing = [p for p in tool.required_params if params.get(p) in (None, "", [])]
    unknown = [p for p in params if p not in tool.required_params + tool.optional_params]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        if unknown:
            parts.append(f"unexpected {', '.join(unknown)}")
        raise ValidationError(
            "invalid_exploration_params",
            f"{tool_id}: {'; '.join(parts)}",
            value=params,
            hint=f"required: {', '.join(tool.required_params)}; optional: {', '.join(tool.optional_params) or 'none'}",
        )
    return tool


def _skill(name: str, args: dict[str, Any], engine: RetroEngine | None = None) -> dict[str, Any]:
    """Run a skill on ``engine``; a failed result is raised again as the error class it came from (e.g.
    ChemistryError)."""
    from molx_agent import errors
    from molx_agent.interfaces.skills import run_skill

    result = run_skill(name, args, engine=engine)
    if not result.success:
        details = result.data.get("error_details") or {}
        cls = getattr(errors, str(details.get("error_type")), None)
        if not (isinstance(cls, type) and issubclass(cls, RetroError)):
            cls = SkillError
        raise cls(
            result.error_code or "exploration_failed",
            details.get("message") or result.error,
            details.get("severity") or "medium",
            value=details.get("value", args),
            hint=details.get("hint"),
        )
    return result.data


def _as_list(value: Any) -> list[str]:
    """A list of strings from a list, a JSON array string or a comma-separated string."""
    import json

    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValidationError(
                    "invalid_exploration_params",
                    f"not a valid JSON array ({exc.msg}): {value!r}",
                    value=value,
                    hint='pass a list such as ["hydroxyl", "amine"] or a comma-separated string',
                ) from None
        else:
            value = [v.strip() for v in text.split(",") if v.strip()]
    if not isinstance(value, list):
        raise ValidationError(
            "invalid_exploration_params",
            "expected a list of strings",
            value=value,
            hint='pass a list such as ["hydroxyl", "amine"] or a comma-separated string',
        )
    return [str(v) for v in value]


def run_tool(
    tool_id: str,
    params: dict[str, Any],
    *,
    stock: str | None = None,
    active_pgs: list[str] | None = None,
    engine: RetroEngine | None = None,
) -> dict[str, Any]:
    """Execute one exploration tool (parameters already checked by :func:`check_tool`) on ``engine`` (the route's
    engine; default: the process-wide engine), with ``stock`` bound to it when given."""
    if stock is not None:
        from molx_agent.interfaces._engine import engine_or_default, engine_with_stock

        engine = engine_with_stock(engine_or_default(engine), stock)
    if tool_id == "assess_feasibility":
        from molx_agent.errors import ChemistryError
        from molx_agent.interfaces.skills._common import seed_smiles_error
        from molx_agent.interfaces.skills.base import require_engine

        assess = require_engine("molx_agent.chem.strategy", "assess_feasibility")
        try:
            return dict(assess(params["reaction_smiles"], reaction_class=params.get("reaction_class")))
        except ChemistryError as exc:
            raise seed_smiles_error(exc) from exc
    if tool_id == "analyze_selectivity":
        return _skill("analyze_selectivity", {"smiles": params["smiles"]}, engine)
    if tool_id == "analyze_molecule":
        return _skill("analyze_molecule", {"smiles": params["smiles"]}, engine)
    if tool_id == "validate_reaction":
        return _skill(
            "validate_reaction", {k: params[k] for k in ("reaction_smiles", "reaction_class") if k in params}, engine
        )
    if tool_id == "check_availability":
        return _skill("check_availability", {"smiles_list": params["smiles_list"]}, engine)
    if tool_id == "recommend_protecting_groups":
        from molx_agent.interfaces.skills.base import require_engine

        recommend = require_engine("molx_agent.chem.strategy", "recommend_protecting_groups")
        groups = _as_list(params["functional_groups"])
        if active_pgs:  # protecting groups already on the molecule constrain orthogonality
            return dict(recommend(groups, active_pgs=list(active_pgs)))
        return dict(recommend(groups))
    raise RetroError("unknown_exploration_tool", f"unknown exploration tool {tool_id!r}", value=tool_id)


def summarize(tool_id: str, result: dict[str, Any]) -> str:
    """One line for the exploration log (``[tool] key facts``), like the seed's ``exploration_log`` entries."""
    facts: list[str] = []

    def add(key: str, value: Any) -> None:
        if value is not None and not isinstance(value, (dict, list)):
            facts.append(f"{key}={value}")

    for key in ("feasibility", "confidence", "is_valid", "verdict", "sa_score", "n_conflicts"):
        add(key, result.get(key))
    if tool_id == "analyze_molecule":
        info = result.get("molecule_info") or {}
        add("canonical_smiles", info.get("canonical_smiles"))
        add("MW", info.get("molecular_weight"))
        add("sa_score", info.get("sa_score"))
        bonds = (info.get("atom_bond_map") or {}).get("strategic_bonds")
        if isinstance(bonds, list):
            add("strategic_bonds", len(bonds))
    elif tool_id == "analyze_selectivity" and isinstance(result.get("competing_groups"), list):
        add("competing_groups", len(result["competing_groups"]))
    elif tool_id == "check_availability":
        if "n_available" in result and "n_total" in result:
            add("available", f"{result['n_available']}/{result['n_total']}")
    elif tool_id == "recommend_protecting_groups":
        recs = result.get("recommended")
        if isinstance(recs, list):
            add(
                "recommended",
                ", ".join(
                    f"{r.get('functional_group')}->{r.get('protecting_group')}"
                    for r in recs
                    if isinstance(r, dict)
                )
                or "none",
            )
        add("orthogonal", result.get("orthogonal"))
    return f"[{tool_id}] " + (", ".join(facts) if facts else "ok")


__all__ = ["ExplorationTool", "EXPLORATION_TOOLS", "tools_for", "check_tool", "run_tool", "summarize"]

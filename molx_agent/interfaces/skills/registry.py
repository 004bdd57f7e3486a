"""The explicit skill registry: name -> class (seed 000 appendix)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from molx_agent.errors import SkillError
from molx_agent.interfaces.skills.analyze_molecule import AnalyzeMoleculeSkill
from molx_agent.interfaces.skills.analyze_scaffold import AnalyzeScaffoldSkill
from molx_agent.interfaces.skills.analyze_selectivity import AnalyzeSelectivitySkill
from molx_agent.interfaces.skills.base import BaseSkill, SkillResult
from molx_agent.interfaces.skills.break_bond import BreakBondSkill
from molx_agent.interfaces.skills.check_availability import CheckAvailabilitySkill
from molx_agent.interfaces.skills.decide_strategy import DecideStrategySkill
from molx_agent.interfaces.skills.get_global_strategy import GetGlobalStrategySkill
from molx_agent.interfaces.skills.map_atoms import MapAtomsSkill
from molx_agent.interfaces.skills.plan_ring_strategy import PlanRingStrategySkill
from molx_agent.interfaces.skills.propose_disconnection import ProposeDisconnectionSkill
from molx_agent.interfaces.skills.render_report import RenderReportSkill
from molx_agent.interfaces.skills.repair_reaction import RepairReactionSkill
from molx_agent.interfaces.skills.validate_reaction import ValidateReactionSkill

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

SKILL_REGISTRY: dict[str, type[BaseSkill]] = {
    cls.name: cls
    for cls in (
        AnalyzeMoleculeSkill,
        AnalyzeScaffoldSkill,
        AnalyzeSelectivitySkill,
        BreakBondSkill,
        CheckAvailabilitySkill,
        DecideStrategySkill,
        GetGlobalStrategySkill,
        MapAtomsSkill,
        PlanRingStrategySkill,
        ProposeDisconnectionSkill,
        RenderReportSkill,
        RepairReactionSkill,
        ValidateReactionSkill,
    )
}


def get_skill(name: str, engine: RetroEngine | None = None) -> BaseSkill:
    """An instance of the skill called ``name`` using ``engine`` (default: the process-wide engine);
    ``SkillError("unknown_skill")`` otherwise."""
    try:
        return SKILL_REGISTRY[name](engine=engine)
    except KeyError:
        import difflib

        close = difflib.get_close_matches(str(name), SKILL_REGISTRY, n=1)
        raise SkillError(
            "unknown_skill",
            f"unknown skill {name!r}",
            value=name,
            hint=(f"did you mean {close[0]!r}? " if close else "")
            + "list them with `molx-agent skill --list`",
        ) from None


def run_skill(name: str, args: dict[str, Any] | None = None, engine: RetroEngine | None = None) -> SkillResult:
    """Run skill ``name`` with ``args`` on ``engine`` (a :class:`RetroEngine`; default: the process-wide engine);
    never raises (an unknown name is a failed result)."""
    try:
        skill = get_skill(name, engine)
    except SkillError as exc:
        return SkillResult.from_error(exc)
    return skill.run(args)


def list_skills() -> list[dict[str, Any]]:
    """Name, class, description and parameters of every skill, sorted by name."""
    return [SKILL_REGISTRY[name].info() for name in sorted(SKILL_REGISTRY)]


__all__ = ["SKILL_REGISTRY", "get_skill", "run_skill", "list_skills"]

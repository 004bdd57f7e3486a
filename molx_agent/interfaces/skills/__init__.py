"""The 13 retrosynthesis skills of seed 000, each a thin layer over the engine.

``run_skill(name, args, engine=None) -> SkillResult`` is the one entry point used by the CLI
(``molx-agent skill``/``batch``), the task pipeline, the LangChain tools and the MCP server; each passes the
:class:`~molx_agent.retro.engine.RetroEngine` it built (the model, the stock and the step judgement every skill
uses), so a test can pass a toy engine.
"""

from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, SkillResult
from molx_agent.interfaces.skills.registry import SKILL_REGISTRY, get_skill, list_skills, run_skill

__all__ = ["BaseSkill", "SkillArgs", "SkillResult", "SKILL_REGISTRY", "get_skill", "list_skills", "run_skill"]

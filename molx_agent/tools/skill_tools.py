"""The 13 retrosynthesis skills as LangChain tools (category ``retro``).

Each :class:`SkillTool` is a thin adapter: its ``args_schema`` is the skill's pydantic ``Args``
model, ``_run`` calls :func:`molx_agent.interfaces.skills.run_skill` on the tool's ``engine`` (the RetroEngine it
was made with; the process-wide engine when none) and returns the SkillResult ``{success, data, error}`` as JSON.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel

from molx_agent.io_utils import dumps


class SkillTool(BaseTool):
    """One skill as a LangChain tool, running on ``engine`` (a RetroEngine; ``None``: the process-wide engine)."""

    skill_name: str = ""
    engine: Any = None

    def _run(self, **kwargs: Any) -> str:
        from molx_agent.interfaces.skills import run_skill

        args = {k: v for k, v in kwargs.items() if v is not None}
        return dumps(run_skill(self.skill_name, args, engine=self.engine).to_dict())


def make_skill_tool(name: str, engine: Any = None) -> SkillTool:
    from molx_agent.interfaces.skills import SKILL_REGISTRY

    cls = SKILL_REGISTRY[name]
    schema: type[BaseModel] = cls.Args
    return SkillTool(name=name, description=cls.description, args_schema=schema, skill_name=name, engine=engine)


def get_skill_tools(engine: Any = None) -> list[SkillTool]:
    from molx_agent.interfaces.skills import SKILL_REGISTRY

    return [make_skill_tool(name, engine) for name in sorted(SKILL_REGISTRY)]


def register_tools(registry: Any, engine: Any = None) -> None:
    """Loader for the ``retro`` category (see ``DEFAULT_LOADERS`` in agents/modules/tools.py); the tools run on
    ``engine`` (default: the process-wide engine)."""
    from molx_agent.agents.modules.tools import ToolCategory

    for tool in get_skill_tools(engine):
        registry.register(tool, ToolCategory.RETRO)


__all__ = ["SkillTool", "make_skill_tool", "get_skill_tools", "register_tools"]

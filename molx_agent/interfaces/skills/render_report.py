"""``render_report``: the synthesis report (HTML, Markdown, JSON) of a completed RetroGraph."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from molx_agent.errors import ValidationError
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs, require_engine


class RenderReportArgs(SkillArgs):
    retro_graph: dict[str, Any] = Field(
        ..., description="the RetroGraph as a JSON object (RetroGraph.to_dict())"
    )
    output_dir: str = Field("outputs/report", description="directory to write the report into")
    name: str = Field("", description="title of the report (e.g. the target's name)")


class RenderReportSkill(BaseSkill):
    name = "render_report"
    description = (
        "Generate synthesis report from completed RetroGraph: a self-contained HTML report (inline "
        "images), Markdown and JSON in output_dir."
    )
    Args = RenderReportArgs

    def _execute(self, args: RenderReportArgs) -> dict[str, Any]:
        from molx_agent.retro.route import RetroGraph

        if "target_smiles" not in args.retro_graph:
            raise ValidationError(
                "invalid_retro_graph",
                "retro_graph has no 'target_smiles': pass RetroGraph.to_dict() (or a finalized route's graph)",
                value=sorted(args.retro_graph)[:10],
            )
        try:
            graph = RetroGraph.from_dict(args.retro_graph)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError(
                "invalid_retro_graph", f"retro_graph is not a valid RetroGraph: {exc}", value=str(exc)
            ) from exc
        render = require_engine("molx_agent.retro.report", "render_route_report")
        paths = render(graph, args.output_dir, name=args.name or graph.target_name)
        return {
            "report_paths": {k: str(v) for k, v in dict(paths).items()},
            "target_smiles": graph.target_smiles,
            "n_steps": graph.n_steps,
            "complete": graph.is_complete(),
            "pending": [n.smiles for n in graph.leaves() if n.role != "terminal"],
        }

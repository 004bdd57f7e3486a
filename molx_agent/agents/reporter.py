"""``reporter`` worker (seed 002, ReporterAgent): writes the reports of its dependencies.

- A dependency with a ``route_graph`` (or ``targets`` holding route graphs) gets a route report through
  ``molx_agent.agents.route_report`` (``build_route_report(task, state)`` when it exists, else
  ``write_route_report(result, language=..., validation=...)``).
- A ``sar`` dependency gets the self-contained SAR HTML report and its JSON summary, in the mode of the task
  options, else of the query ("R1" -> site R1, "subset:ID,ID"), else the SAR task's mode (Full / single site /
  subset).

Result: ``report_paths`` (every file written) and ``summary`` (prose in ``state["language"]``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.data_cleaner import task_options
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import DataError, ValidationError

logger = logging.getLogger(__name__)


def _has_route(dep: dict[str, Any]) -> bool:
    return bool(dep.get("route_graph")) or any(t.get("route_graph") for t in dep.get("targets") or [])


def _route_report(task: Task, state: AgentState, deps: list[dict[str, Any]],
                  output_root: str | Path | None = None) -> dict[str, Any]:
    from molx_agent.agents import route_report

    if hasattr(route_report, "build_route_report"):
        return route_report.build_route_report(task, state)
    route = next(d for d in deps if _has_route(d))
    validation = next((d for d in deps if "all_valid" in d), None)
    return route_report.write_route_report(route, language=state.get("language", "en"), validation=validation,
                                           output_root=output_root)


def _sar_result(dep: dict[str, Any], llm: Any, state_language: str = "en") -> Any:
    """The SARResult of a ``sar`` dependency: from the in-process cache, else recomputed from its cleaned data."""
    from molx_agent.agents.sar import recall, remember
    from molx_agent.sar.clean import load_cleaned
    from molx_agent.sar.insights import build_insights
    from molx_agent.sar.pipeline import analyse_clean, parse_mode

    result = recall(dep.get("result_key"))
    if result is not None:
        return result
    out = dep.get("output_dir")
    if not out or not Path(out, "cleaned.csv").is_file():
        raise ValidationError("no_sar_data", "the SAR results to report are not available", value=out)
    core = next((s.get("core_smiles") for s in dep.get("series") or [] if s.get("core_source") == "user"), None)
    result = analyse_clean(load_cleaned(out), core=core, max_cuts=dep.get("mmp_max_cuts"))
    result.mode = parse_mode(dep.get("mode") or "full")
    result.language = "zh" if state_language == "zh" else "en"
    result.insights, result.insights_source = build_insights(result, result.language, llm)
    result.output_dir = str(out)
    remember(result)
    return result


def _sar_report(task: Task, state: AgentState, dep: dict[str, Any], llm: Any) -> dict[str, Any]:
    from molx_agent.agents.sar import mode_from_query
    from molx_agent.sar.insights import build_insights
    from molx_agent.sar.pipeline import parse_mode, validate_mode, write_report

    language = state.get("language", "en")
    result = _sar_result(dep, llm, language)
    opts = task_options(task)
    query = (task.get("inputs") or {}).get("query") or ""
    wanted = opts.get("mode") or (mode_from_query(query) if query else None)
    notes: list[str] = []
    before = (result.mode, result.language)
    if wanted and wanted != "full":
        mode = parse_mode(wanted)
        try:
            validate_mode(result, mode)
            result.mode = mode
        except DataError as exc:
            notes.append(f"{exc.message}; full report written instead")
    result.language = "zh" if language == "zh" else "en"
    if (result.mode, result.language) != before or not result.insights:
        # the findings lead with the chosen site or compounds, in the answer's language
        result.insights, result.insights_source = build_insights(result, result.language, llm)
    name = "sar_report" if result.mode.kind == "full" else f"sar_report_{result.mode.kind}"
    write_report(result, Path(result.output_dir), name=name)
    paths = [result.report_path, result.summary_path]
    if language == "zh":
        summary = f"SAR 报告（{result.mode.label} 模式）已生成：{result.report_path}"
    else:
        summary = f"SAR report ({result.mode.label}) written: {result.report_path}"
    if notes:
        summary += " (" + "; ".join(notes) + ")"
    return {"report_paths": paths, "summary": summary, "mode": result.mode.label}


class ReporterAgent(BaseAgent):
    """Writes route and/or SAR reports of the dependencies (see the module docstring)."""

    name = "reporter"
    description = "Aggregates results and writes self-contained HTML reports (SAR: Full / single site / subset)."

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        deps = self.dependency_results(task, state)
        # every ancestor counts (synthesis_of_hits: reporter <- validation <- disconnection <- sar)
        results = state.get("results") or {}
        tasks = state.get("tasks") or {}
        seen = set(task.get("depends_on") or [])
        queue = list(task.get("depends_on") or [])
        while queue:
            for dd in (tasks.get(queue.pop(0)) or {}).get("depends_on") or []:
                if dd not in seen:
                    seen.add(dd)
                    queue.append(dd)
                    if dd in results:
                        deps.append(results[dd])
        paths: list[str] = []
        summaries: list[str] = []
        sar_dep = next((d for d in deps if d.get("result_key") or d.get("n_cliff_pairs") is not None), None)
        if sar_dep is not None:
            out = _sar_report(task, state, sar_dep, self.llm)
            paths += out["report_paths"]
            summaries.append(out["summary"])
        if any(_has_route(d) for d in deps):
            out = _route_report(task, state, deps, output_root=self.settings.output_dir)
            paths += [str(p) for p in out.get("report_paths") or []]
            if out.get("summary"):
                summaries.append(str(out["summary"]))
        if not paths:
            raise ValidationError("nothing_to_report", "no SAR or route results to report",
                                  hint="the reporter runs after a sar or disconnection task")
        return {"report_paths": paths, "summary": " ".join(summaries)}


__all__ = ["ReporterAgent"]

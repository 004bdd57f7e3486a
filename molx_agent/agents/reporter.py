"""``reporter`` worker (seed 002, ReporterAgent): writes the reports of its ancestors' results.

- Route searches (``disconnection`` results) get one route report per target through
  :func:`molx_agent.agents.route_report.write_route_report`, with the ``validation`` worker's verdicts: the
  judged best route of each target, its verdict, confidence and issues; a target that is sold is named "buy it".
- A ``sar`` result gets the self-contained SAR HTML report and its JSON summary (:func:`generate_html_report`), in
  the mode of the task options, else of the query ("R1" -> site R1, "subset:ID,ID"), else the SAR task's mode.  The
  ``SARResult`` is read from the file the ``sar`` worker wrote (``sar_result_file``); only when that file is gone is
  it recomputed from the cleaned data.

:func:`build_report_summary` gathers the verdicts and headline numbers of every result into one JSON document,
written beside the reports (``report_summary.json``).

Result: ``report_paths`` (every file written), ``summary_file`` and ``summary`` (prose in ``state["language"]``).
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
    records = dep.get("targets") or [dep]
    return any(r.get("route_graph") or r.get("route_graphs") or r.get("purchasable") for r in records)


def _is_search(dep: dict[str, Any]) -> bool:
    return "searches" in dep or "route_graphs" in dep or any("searches" in t for t in dep.get("targets") or [])


def load_sar_result(dep: dict[str, Any], llm: Any = None, language: str = "en") -> Any:
    """The ``SARResult`` of a ``sar`` result: from its ``sar_result_file``, else recomputed from the cleaned data."""
    from molx_agent.agents.sar import recall, remember
    from molx_agent.sar.clean import load_cleaned
    from molx_agent.sar.insights import build_insights
    from molx_agent.sar.pipeline import analyse_clean, parse_mode

    result = recall(dep.get("sar_result_file") or dep.get("result_key"))
    if result is not None:
        return result
    cleaned = dep.get("cleaned_file")
    out = Path(cleaned).parent if cleaned else (Path(dep["output_dir"]) if dep.get("output_dir") else None)
    if out is None or not Path(out, "cleaned.csv").is_file():
        raise ValidationError("no_sar_data", "the SAR results to report are not available", value=str(out))
    core = next((s.get("core_smiles") for s in dep.get("series") or [] if s.get("core_source") == "user"), None)
    result = analyse_clean(load_cleaned(out), core=core, max_cuts=dep.get("mmp_max_cuts"),
                           min_series_size=int(dep.get("min_series_size") or 5))
    result.mode = parse_mode(dep.get("mode") or "full")
    result.language = "zh" if language == "zh" else "en"
    result.insights, result.insights_source = build_insights(result, result.language, llm)
    result.output_dir = str(dep.get("output_dir") or out)
    remember(result)
    return result


def generate_html_report(sar_result: Any, output_dir: str | Path | None = None, *, mode: str | None = None,
                         language: str = "en", llm: Any = None) -> dict[str, Any]:
    """Write the SAR HTML report (and its JSON summary) of ``sar_result`` in ``mode``; returns ``report_path``,
    ``summary_path``, ``mode`` and ``notes`` (e.g. an unknown site, for which the full report is written)."""
    from molx_agent.sar.insights import build_insights
    from molx_agent.sar.pipeline import parse_mode, validate_mode, write_report

    notes: list[str] = []
    before = (sar_result.mode, sar_result.language)
    if mode and mode != "full":
        wanted = parse_mode(mode)
        try:
            validate_mode(sar_result, wanted)
            sar_result.mode = wanted
        except DataError as exc:
            notes.append(f"{exc.message}; full report written instead")
    sar_result.language = "zh" if language == "zh" else "en"
    if (sar_result.mode, sar_result.language) != before or not sar_result.insights:
        sar_result.insights, sar_result.insights_source = build_insights(sar_result, sar_result.language, llm)
    name = "sar_report" if sar_result.mode.kind == "full" else f"sar_report_{sar_result.mode.kind}"
    write_report(sar_result, Path(output_dir or sar_result.output_dir), name=name)
    return {"report_path": sar_result.report_path, "summary_path": sar_result.summary_path,
            "mode": sar_result.mode.label, "notes": notes}


def build_report_summary(results: list[dict[str, Any]], language: str = "en") -> dict[str, Any]:
    """One JSON document with the verdict and headline numbers of each result (SAR, searches, judgements)."""
    doc: dict[str, Any] = {"language": language, "sar": None, "targets": [], "verdicts": {}}
    for r in results:
        if r.get("sar_result_file") or r.get("n_cliff_pairs") is not None:
            doc["sar"] = {k: r.get(k) for k in ("n_clean", "n_series", "n_cliff_pairs", "n_mmp_pairs", "mode",
                                                "verdict", "top_compounds", "insights", "report_path")}
            doc["sar"]["issues"] = [i.get("message") for i in r.get("issues") or []]
            doc["verdicts"]["sar"] = r.get("verdict")
        if r.get("mode") == "routes":
            doc["verdicts"]["routes"] = r.get("verdict")
            for t in r.get("targets") or []:
                doc["targets"].append({k: t.get(k) for k in ("target_smiles", "target_name", "verdict", "confidence",
                                                              "purchasable", "summary")}
                                      | {"issues": [i.get("message") for i in t.get("issues") or []]})
        elif _is_search(r) and not any(d.get("mode") == "routes" for d in results):
            for t in r.get("targets") or [r]:
                doc["targets"].append({k: t.get(k) for k in ("target_smiles", "target_name", "solved", "purchasable",
                                                              "summary")})
    return doc


def _sar_report(task: Task, state: AgentState, dep: dict[str, Any], llm: Any) -> dict[str, Any]:
    from molx_agent.agents.sar import mode_from_query

    language = state.get("language", "en")
    result = load_sar_result(dep, llm, language)
    opts = task_options(task)
    query = (task.get("inputs") or {}).get("query") or ""
    wanted = opts.get("mode") or (mode_from_query(query) if query else None)
    out = generate_html_report(result, mode=wanted, language=language, llm=llm)
    paths = [out["report_path"], out["summary_path"]]
    if language == "zh":
        summary = f"SAR 报告（{out['mode']} 模式）已生成：{out['report_path']}"
    else:
        summary = f"SAR report ({out['mode']}) written: {out['report_path']}"
    if out["notes"]:
        summary += " (" + "; ".join(out["notes"]) + ")"
    return {"report_paths": paths, "summary": summary, "mode": out["mode"], "output_dir": result.output_dir}


class ReporterAgent(BaseAgent):
    """Writes route and/or SAR reports of the ancestors' results (see the module docstring)."""

    name = "reporter"
    description = "Aggregates results and writes self-contained HTML reports (SAR: Full / single site / subset)."
    option_keys = ("mode",)

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        from molx_agent.agents.route_report import write_route_report
        from molx_agent.io_utils import atomic_write_json

        deps = self.ancestor_results(task, state)
        language = state.get("language", "en")
        paths: list[str] = []
        summaries: list[str] = []
        folder: str | None = None
        sar_dep = next((d for d in deps if d.get("sar_result_file") or d.get("n_cliff_pairs") is not None), None)
        if sar_dep is not None:
            out = _sar_report(task, state, sar_dep, self.llm)
            paths += out["report_paths"]
            summaries.append(out["summary"])
            folder = out["output_dir"]
        search = next((d for d in deps if _is_search(d) and _has_route(d)), None)
        if search is not None:
            validation = next((d for d in deps if d.get("mode") == "routes"), None)
            records = search.get("targets") or [search]
            if any(r.get("route_graph") or r.get("route_graphs") for r in records):
                out = write_route_report(search, language=language, validation=validation,
                                         output_root=self.settings.output_dir)
                paths += [str(p) for p in out.get("report_paths") or []]
                folder = folder or out.get("output_dir")
                if out.get("summary"):
                    summaries.append(str(out["summary"]))
            else:
                summaries.append("每个目标都可直接购买，无需路线报告。" if language == "zh"
                                 else "Every target is sold as such: no route report needed.")
        if not paths and not summaries:
            raise ValidationError("nothing_to_report", "no SAR or route results to report",
                                  hint="the reporter runs after a sar or disconnection task")
        result: dict[str, Any] = {"report_paths": paths, "summary": " ".join(summaries)}
        if folder:
            summary_file = Path(folder) / "report_summary.json"
            atomic_write_json(summary_file, build_report_summary(deps, language))
            result["summary_file"] = str(summary_file)
            result["report_paths"] = [*paths, str(summary_file)]
        return result


__all__ = ["ReporterAgent", "generate_html_report", "build_report_summary", "load_sar_result"]

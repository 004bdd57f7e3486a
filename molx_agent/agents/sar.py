"""``sar`` worker (seed 002, SARAgent): series and cores, R-group decomposition, single-point scans, OCAT
series, matched molecular pairs, activity cliffs, properties and written insights on the cleaned data of
a ``data_cleaner`` dependency (or, without one, on ``inputs["files"]`` cleaned here).

Options (``inputs["options"]``): ``core`` (SMILES/SMARTS), ``mode`` (``full``, ``site:R1``, ``subset:ID,ID``;
otherwise read from the query: "R1 SAR" -> ``site:R1``), ``max_cuts`` (mmpdb cuts, default 1).
Result: the SAR JSON summary (lists capped at :data:`MAX_ITEMS`), ``top_compounds`` ([{id, smiles,
p_activity}], best first), ``summary`` (prose in ``state["language"]``), ``result_key`` (for the reporter),
``mode`` and ``report_paths`` (the CSV tables written).
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.data_cleaner import read_task_table, task_files, task_options, task_query
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import DataError, ValidationError

logger = logging.getLogger(__name__)

MAX_ITEMS = 20
_CACHE_SIZE = 4
#: Recent SAR results by ``result_key`` so the reporter renders without recomputing (in-process only).
_RESULTS: OrderedDict[str, Any] = OrderedDict()

_SITE_RE = re.compile(r"(?<![A-Za-z0-9])R(\d{1,2})(?![0-9])")
_SUBSET_RE = re.compile(r"subset\s*[:：]\s*([^\s;；]+)", re.IGNORECASE)


def mode_from_query(query: str, options: dict[str, Any] | None = None) -> str:
    """Report mode from the task options, else from the query ("R1 SAR" -> ``site:R1``), else ``full``."""
    opts = options or {}
    if opts.get("mode"):
        return str(opts["mode"])
    m = _SUBSET_RE.search(query or "")
    if m:
        return f"subset:{m.group(1)}"
    sites = {f"R{x}" for x in _SITE_RE.findall(query or "")}
    if len(sites) == 1:
        return f"site:{sites.pop()}"
    return "full"


def remember(result: Any) -> str:
    key = str(result.output_dir or id(result))
    _RESULTS[key] = result
    _RESULTS.move_to_end(key)
    while len(_RESULTS) > _CACHE_SIZE:
        _RESULTS.popitem(last=False)
    return key


def recall(key: str | None) -> Any | None:
    return _RESULTS.get(key) if key else None


def sar_summary(result: Any, language: str) -> str:
    lines = result.insights[:4]
    if language == "zh":
        head = f"SAR 分析完成（{result.clean.n_clean} 个化合物，{len(result.series)} 个系列）。"
    else:
        head = f"SAR analysis done ({result.clean.n_clean} compounds, {len(result.series)} series)."
    return " ".join([head, *lines])


def _clean_here(task: Task, state: AgentState, llm: Any, output_dir: Path) -> Any:
    from molx_agent.io_utils import timestamped_dir
    from molx_agent.sar.clean import clean_table, save_cleaned

    files = task_files(task, state)
    if not files:
        raise ValidationError("no_data_file", "no cleaned data and no data file for the SAR analysis",
                              hint="pass a CSV/Excel/SDF file, e.g. molx-agent run --data series.csv")
    opts = task_options(task)
    clean = clean_table(read_task_table(files[0], opts, task_query(task, state)),
                        smiles_col=opts.get("smiles_col"), activity_col=opts.get("activity_col"),
                        id_col=opts.get("id_col"), units=opts.get("units"), llm=llm)
    out = Path(opts["output_dir"]) if opts.get("output_dir") else timestamped_dir(
        output_dir, f"sar_{Path(files[0]).stem}")
    return save_cleaned(clean, out)


class SARAgent(BaseAgent):
    """Structure-activity analysis of cleaned compound data (see the module docstring)."""

    name = "sar"
    description = "Series/core selection, R-group decomposition, OCAT, matched pairs, activity cliffs, insights."

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        from molx_agent.sar.clean import load_cleaned, require_valid
        from molx_agent.sar.insights import build_insights
        from molx_agent.sar.pipeline import analyse_clean, parse_mode, validate_mode, write_tables

        language = state.get("language", "en")
        opts = task_options(task)
        dep = next((d for d in self.dependency_results(task, state) if d.get("cleaned_file")), None)
        clean = (load_cleaned(dep["output_dir"]) if dep
                 else _clean_here(task, state, self.llm, self.settings.output_dir))
        require_valid(clean)
        if not clean.mapping.activity_col:
            raise ValidationError(
                "no_activity_column",
                f"no activity column found in {Path(clean.source).name}; a SAR analysis needs potencies",
                value=clean.source, hint="name it with --activity-col (and --units)")
        result = analyse_clean(clean, core=opts.get("core"), max_cuts=opts.get("max_cuts"))
        query = (task.get("inputs") or {}).get("query") or state.get("user_query", "")
        mode = parse_mode(mode_from_query(query, opts))
        notes: list[str] = []
        try:
            validate_mode(result, mode)
        except DataError as exc:
            notes.append(f"{exc.message}; the full report is given instead")
            mode = parse_mode("full")
        result.mode = mode
        result.language = "zh" if language == "zh" else "en"
        result.insights, result.insights_source = build_insights(result, result.language, self.llm)
        write_tables(result, Path(clean.cleaned_file).parent)
        key = remember(result)
        doc = result.to_dict(max_items=MAX_ITEMS)
        doc.update({
            "result_key": key, "top_compounds": result.top_compounds(5), "mode": mode.label,
            "mode_notes": notes, "report_paths": list(result.files.values()),
            "summary": sar_summary(result, language) + ("" if not notes else " " + " ".join(notes)),
        })
        return doc


__all__ = ["SARAgent", "mode_from_query", "remember", "recall"]
